#include "conch/runtime/logging/logger.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "conch/runtime/logging/log.hpp"

namespace conch::runtime::logging {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> lines_of(const fs::path& p) {
  std::ifstream in{p};
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

/// Each test starts from the defaults, writing to a file of its own.
class logger_test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("conch-logger-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    reset();
    ASSERT_TRUE(set_log_file(path("a.log")).is_ok());
  }

  void TearDown() override {
    reset();
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  static void reset() {
    log_settings_update defaults{true, true, true, 0u, std::string{"default"}};
    ASSERT_TRUE(apply_settings(defaults));
    ASSERT_TRUE(set_log_file("").is_ok());
    set_log_callback({});
  }

  fs::path path(const std::string& name) const { return dir_ / name; }

  fs::path dir_;
};

TEST_F(logger_test, starts_with_the_settings_the_extension_reports) {
  auto s = current_settings();
  EXPECT_TRUE(s.log_info && s.log_warning && s.log_error);
  EXPECT_EQ(s.log_verbose_level, 0u);
  EXPECT_EQ(s.log_format, "default");
  EXPECT_EQ(s.log_file, path("a.log").string());
}

TEST_F(logger_test, writes_lines_in_the_default_format) {
  int line = __LINE__ + 1;
  CONCH_LOG_WARN << "disk " << 42 << "% full";
  auto lines = lines_of(path("a.log"));
  ASSERT_EQ(lines.size(), 1u);
  std::regex expected{R"(W\d{4} \d\d:\d\d:\d\d\.\d{6} )" + std::to_string(::getpid())
                      + " logger\\.test\\.cpp:" + std::to_string(line) + R"(\] disk 42% full)"};
  EXPECT_TRUE(std::regex_match(lines[0], expected)) << lines[0];
}

TEST_F(logger_test, switches_to_iso8601) {
  log_settings_update u;
  u.log_format = "ISO8601";
  ASSERT_TRUE(apply_settings(u));
  CONCH_LOG_ERROR << "bad";
  auto lines = lines_of(path("a.log"));
  ASSERT_EQ(lines.size(), 1u);
  std::regex expected{R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ E \d+ logger\.test\.cpp:\d+\] bad)"};
  EXPECT_TRUE(std::regex_match(lines[0], expected)) << lines[0];
}

TEST_F(logger_test, refuses_an_unknown_format_and_changes_nothing) {
  log_settings_update u;
  u.log_info = false;
  u.log_format = "json";
  auto s = apply_settings(u);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), errc::invalid_argument);
  EXPECT_TRUE(current_settings().log_info);
}

TEST_F(logger_test, each_level_is_enabled_on_its_own) {
  log_settings_update u;
  u.log_info = true;
  u.log_warning = false;
  u.log_error = false;
  ASSERT_TRUE(apply_settings(u));
  int evaluated = 0;
  auto count = [&] { return ++evaluated; };
  CONCH_LOG_INFO << "info " << count();
  CONCH_LOG_WARN << "warn " << count();
  CONCH_LOG_ERROR << "error " << count();
  CONCH_LOG_VERBOSE(1) << "verbose " << count();
  EXPECT_EQ(evaluated, 1); // a statement that is off evaluates nothing
  auto lines = lines_of(path("a.log"));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("] info 1"), std::string::npos);
}

TEST_F(logger_test, statements_nest_in_an_unbraced_if_else) {
  bool flag = false;
  if (flag)
    CONCH_LOG_INFO << "then";
  else
    CONCH_LOG_WARN << "else";
  auto lines = lines_of(path("a.log"));
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0][0], 'W');
  EXPECT_NE(lines[0].find("] else"), std::string::npos);
}

TEST_F(logger_test, verbose_lines_follow_the_verbose_level) {
  log_settings_update u;
  u.log_info = false;
  u.log_verbose_level = 2;
  ASSERT_TRUE(apply_settings(u));
  CONCH_LOG_VERBOSE(1) << "one";
  CONCH_LOG_VERBOSE(2) << "two";
  CONCH_LOG_VERBOSE(3) << "three";
  auto lines = lines_of(path("a.log"));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].substr(0, 1), "I");
  EXPECT_NE(lines[1].find("] two"), std::string::npos);
}

TEST_F(logger_test, switches_files_and_keeps_the_old_one_when_the_new_fails) {
  CONCH_LOG_INFO << "first";
  ASSERT_TRUE(set_log_file(path("b.log").string()).is_ok());
  CONCH_LOG_INFO << "second";
  auto bad = set_log_file(path("missing/dir/c.log").string());
  EXPECT_EQ(bad.code(), errc::invalid_argument);
  EXPECT_NE(bad.message().find("failed to open log file"), std::string::npos);
  CONCH_LOG_INFO << "third";
  EXPECT_EQ(current_settings().log_file, path("b.log").string());
  auto a = lines_of(path("a.log"));
  auto b = lines_of(path("b.log"));
  ASSERT_EQ(a.size(), 1u);
  EXPECT_NE(a[0].find("] first"), std::string::npos);
  ASSERT_EQ(b.size(), 3u); // second, the error opening c.log, third
  EXPECT_NE(b[0].find("] second"), std::string::npos);
  EXPECT_EQ(b[1][0], 'E');
  EXPECT_NE(b[1].find("missing/dir/c.log"), std::string::npos);
  EXPECT_NE(b[2].find("] third"), std::string::npos);
}

TEST_F(logger_test, callback_receives_each_line) {
  struct seen {
    log_level level;
    std::string file;
    int line;
    std::string stamp;
    std::string message;
  };
  std::vector<seen> got;
  set_log_callback([&](log_level l, std::string_view f, int n, std::string_view t,
                       std::string_view m) {
    got.push_back({l, std::string{f}, n, std::string{t}, std::string{m}});
  });
  int line = __LINE__ + 1;
  CONCH_LOG_ERROR << "broken";
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].level, log_level::error);
  EXPECT_EQ(got[0].file, "logger.test.cpp");
  EXPECT_EQ(got[0].line, line);
  EXPECT_EQ(got[0].message, "broken");
  auto written = lines_of(path("a.log"));
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].substr(1, got[0].stamp.size()), got[0].stamp);
  set_log_callback({});
  CONCH_LOG_ERROR << "after";
  EXPECT_EQ(got.size(), 1u);
}

TEST_F(logger_test, a_throwing_callback_is_swallowed) {
  int calls = 0;
  set_log_callback([&](log_level, std::string_view, int, std::string_view, std::string_view) {
    ++calls;
    throw std::runtime_error("boom");
  });
  CONCH_LOG_INFO << "one";
  CONCH_LOG_INFO << "two";
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(lines_of(path("a.log")).size(), 2u);
}

TEST_F(logger_test, a_callback_that_logs_does_not_recurse_or_deadlock) {
  int calls = 0;
  set_log_callback([&](log_level, std::string_view, int, std::string_view, std::string_view m) {
    ++calls;
    CONCH_LOG_INFO << "echo " << m;
    log_settings_update u; // changing settings from a callback is allowed too
    u.log_verbose_level = 0;
    (void)apply_settings(u);
  });
  CONCH_LOG_INFO << "hello";
  EXPECT_EQ(calls, 1);
  auto lines = lines_of(path("a.log"));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find("] echo hello"), std::string::npos);
}

// CVE-2024-0095's class: a client's CR/LF must not forge a line of its own.
TEST_F(logger_test, a_client_string_cannot_forge_a_line) {
  std::vector<std::string> messages;
  set_log_callback([&](log_level, std::string_view, int, std::string_view, std::string_view m) {
    messages.emplace_back(m);
  });
  const std::string name = "a\r\nE1231 forged";
  CONCH_LOG_ERROR << "failed to load '" << name << "'";
  log_settings_update iso;
  iso.log_format = "ISO8601";
  ASSERT_TRUE(apply_settings(iso));
  CONCH_LOG_INFO << "loading: " << name << ":1" << '\x1b' << '\0';
  write(log_level::warn, "dir/a\nb.py", 3, name);
  std::ifstream in{path("a.log"), std::ios::binary};
  std::string text{std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 3) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos);
  auto lines = lines_of(path("a.log"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0][0], 'E');
  EXPECT_NE(lines[0].find("] failed to load 'a\\r\\nE1231 forged'"), std::string::npos);
  EXPECT_NE(lines[1].find(" I "), std::string::npos);
  EXPECT_NE(lines[1].find("] loading: a\\r\\nE1231 forged:1\\x1b\\x00"), std::string::npos);
  EXPECT_NE(lines[2].find(" W "), std::string::npos);
  EXPECT_NE(lines[2].find(" a\\nb.py:3] a\\r\\nE1231 forged"), std::string::npos) << lines[2];
  // The callback gets the message as the line shows it.
  ASSERT_EQ(messages.size(), 3u);
  EXPECT_EQ(messages[0], "failed to load 'a\\r\\nE1231 forged'");
  EXPECT_EQ(messages[2], "a\\r\\nE1231 forged");
}

TEST_F(logger_test, concurrent_lines_never_interleave) {
  constexpr int threads = 8;
  constexpr int per_thread = 200;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t)
    workers.emplace_back([t] {
      for (int i = 0; i < per_thread; ++i)
        CONCH_LOG_INFO << "thread " << t << " line " << i << " " << std::string(100, 'x');
    });
  for (auto& w : workers)
    w.join();
  auto lines = lines_of(path("a.log"));
  ASSERT_EQ(lines.size(), static_cast<size_t>(threads * per_thread));
  std::regex whole{R"(I\d{4} \d\d:\d\d:\d\d\.\d{6} \d+ logger\.test\.cpp:\d+\] thread \d line \d+ x{100})"};
  for (const auto& l : lines)
    ASSERT_TRUE(std::regex_match(l, whole)) << l;
}

} // namespace
} // namespace conch::runtime::logging
