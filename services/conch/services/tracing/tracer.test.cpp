#include "conch/services/tracing/tracer.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <rapidjson/document.h>

#include <gtest/gtest.h>

#include "conch/services/tracing/http_post.hpp"
#include "conch/services/tracing/trace_file_writer.hpp"

namespace conch::services {
namespace {

namespace fs = std::filesystem;
using runtime::tracing::trace_settings;
using runtime::tracing::trace_settings_update;

struct temp_dir {
  fs::path path;
  temp_dir() {
    path = fs::temp_directory_path() / ("conch_tracer_" + std::to_string(::getpid()) + "_"
                                        + std::to_string(counter++));
    fs::create_directories(path);
  }
  ~temp_dir() { fs::remove_all(path); }
  static inline int counter = 0;
};

trace_settings file_settings(const fs::path& file, uint32_t rate = 1) {
  trace_settings s;
  s.level = runtime::trace_timestamps;
  s.rate = rate;
  s.file = file.string();
  return s;
}

// The number of traces (header objects) in a trace file.
size_t traces_in(const fs::path& file) {
  std::ifstream in{file};
  std::stringstream text;
  text << in.rdbuf();
  rapidjson::Document doc;
  doc.Parse(text.str().c_str());
  EXPECT_FALSE(doc.HasParseError()) << file << ": " << text.str();
  if (doc.HasParseError() || !doc.IsArray())
    return 0;
  size_t n = 0;
  for (const auto& o : doc.GetArray())
    n += o.HasMember("model_name") ? 1 : 0;
  return n;
}

void take(tracer& t, const std::string& model, int requests) {
  for (int i = 0; i < requests; ++i)
    if (auto trace = t.sample(model))
      trace->stamp("REQUEST_START", 1);
}

TEST(tracer, samples_one_request_in_rate_and_writes_them_at_close) {
  temp_dir dir;
  tracer t{file_settings(dir.path / "t.json", 3)};
  EXPECT_TRUE(runtime::tracing_active());
  take(t, "m", 10);
  t.close();
  EXPECT_EQ(traces_in(dir.path / "t.json"), 3u);
  EXPECT_FALSE(t.sample("m"));
}

TEST(tracer, off_samples_nothing_and_creates_no_file) {
  temp_dir dir;
  auto s = file_settings(dir.path / "t.json");
  s.level = 0;
  tracer t{s};
  EXPECT_FALSE(t.sample("m"));
  t.close();
  EXPECT_FALSE(fs::exists(dir.path / "t.json"));
}

TEST(tracer, a_count_ends_sampling_and_fills_an_indexed_file) {
  temp_dir dir;
  tracer t{file_settings(dir.path / "t.json")};
  trace_settings_update u;
  u.count = {true, 2};
  ASSERT_TRUE(t.update("", u));
  take(t, "m", 5);
  t.flush();
  EXPECT_EQ(traces_in(dir.path / "t.json.0"), 2u);
  EXPECT_EQ(t.settings("").count, 0);
  EXPECT_EQ(t.settings("m").count, 0);
  t.close();
  EXPECT_FALSE(fs::exists(dir.path / "t.json"));
}

TEST(tracer, a_models_own_settings_sample_apart_from_the_global_ones) {
  temp_dir dir;
  tracer t{file_settings(dir.path / "t.json")};
  trace_settings_update off;
  off.level = {true, 0u};
  ASSERT_TRUE(t.update("quiet", off));
  EXPECT_FALSE(t.sample("quiet"));
  EXPECT_TRUE(t.sample("loud"));
  trace_settings_update freq;
  freq.log_frequency = {true, 2u};
  ASSERT_TRUE(t.update("rotated", freq));
  take(t, "rotated", 5);
  t.flush();
  EXPECT_EQ(traces_in(dir.path / "t.json.0"), 2u);
  EXPECT_EQ(traces_in(dir.path / "t.json.1"), 2u);
  EXPECT_FALSE(fs::exists(dir.path / "t.json.2"));
  // Cleared, the model follows the global settings again; what it held
  // goes to an indexed file of its own.
  trace_settings_update clear;
  clear.log_frequency = {true, std::nullopt};
  ASSERT_TRUE(t.update("rotated", clear));
  t.flush();
  EXPECT_EQ(traces_in(dir.path / "t.json.2"), 1u);
  t.close();
  EXPECT_EQ(traces_in(dir.path / "t.json"), 1u);  // "loud"'s
}

TEST(tracer, close_writes_what_a_stream_holds_back_while_a_request_holds_it) {
  temp_dir dir;
  tracer t{file_settings(dir.path / "t.json")};
  trace_settings_update freq;
  freq.log_frequency = {true, 2u};
  ASSERT_TRUE(t.update("", freq));
  take(t, "m", 1);            // held back for the next indexed file
  auto late = t.sample("m");  // a request that outlives the stop
  ASSERT_TRUE(late);
  t.close();
  EXPECT_EQ(traces_in(dir.path / "t.json.0"), 1u);
  late.reset();  // finished after the stop: dropped
  EXPECT_FALSE(fs::exists(dir.path / "t.json.1"));
}

TEST(tracer, flush_waits_for_a_trace_its_request_lets_go_a_moment_later) {
  temp_dir dir;
  tracer t{file_settings(dir.path / "t.json", 1)};
  trace_settings_update count;
  count.count = {true, 1};
  ASSERT_TRUE(t.update("", count));
  auto held = t.sample("m");
  std::thread later{[&held] {
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
    held.reset();
  }};
  t.flush();
  later.join();
  EXPECT_EQ(traces_in(dir.path / "t.json.0"), 1u);
  t.close();
}

TEST(tracer, opentelemetry_mode_traces_a_propagated_request_whatever_the_rate) {
  trace_settings s;
  s.mode = runtime::tracing::trace_mode::opentelemetry;
  s.level = runtime::trace_timestamps | runtime::trace_tensors;
  s.rate = 0;
  s.opentelemetry.url = "http://127.0.0.1:9/v1/traces";  // refused: nothing listens
  tracer t{s};
  EXPECT_FALSE(t.sample("m"));
  auto forced = t.sample("m", true);
  ASSERT_TRUE(forced);
  EXPECT_FALSE(forced->records_tensors());
  forced.reset();
  t.close();
}

TEST(tracer, the_writer_drops_traces_when_the_file_cannot_be_made) {
  auto ids = std::make_shared<std::atomic<uint64_t>>(0);
  auto writer = std::make_shared<trace_file_writer>("/nonexistent-dir/t.json", ids);
  auto stream = writer->open_stream(0, -1);
  runtime::trace_record r;
  r.id = stream->next_id();
  stream->submit(std::move(r));
  writer->flush();
  EXPECT_EQ(writer->dropped(), 1u);
  stream.reset();
  writer->close();
}

TEST(http_post, reads_export_urls) {
  auto e = parse_http_url("http://collector:4318/v1/traces");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "collector");
  EXPECT_EQ(e->port, "4318");
  EXPECT_EQ(e->path, "/v1/traces");
  e = parse_http_url("localhost:10000/v1/traces");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->host, "localhost");
  EXPECT_EQ(e->port, "10000");
  e = parse_http_url("http://collector");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->port, "80");
  EXPECT_EQ(e->path, "/");
  EXPECT_EQ(parse_http_url("https://collector/v1/traces").error().code(),
            runtime::errc::unsupported);
  EXPECT_FALSE(parse_http_url("http://:80/x"));
}

TEST(http_post, a_refused_connection_fails_at_once) {
  auto st = http_post(*parse_http_url("127.0.0.1:9/x"), "text/plain", "x",
                      std::chrono::milliseconds{500});
  EXPECT_FALSE(st);
  EXPECT_EQ(st.code(), runtime::errc::unavailable);
}

} // namespace
} // namespace conch::services
