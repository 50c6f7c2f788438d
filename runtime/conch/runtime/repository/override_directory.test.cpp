#include "conch/runtime/repository/override_directory.hpp"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "conch/runtime/repository/temp_directory.test.hpp"

using namespace conch::runtime;
using namespace conch::runtime::repository;
namespace fs = std::filesystem;

namespace {

const std::string config_json = R"({"name":"m","backend":"python","max_batch_size":4})";

class override_directory_test : public ::testing::Test {
 protected:
  // Every rejected call must leave `base` empty.
  void expect_rejected(const std::string& key) {
    auto r = write_override_directory(tmp_.path(), "m", config_json, {{key, "x"}});
    ASSERT_FALSE(r.has_value()) << key;
    EXPECT_EQ(r.error().code(), errc::invalid_argument) << key;
    EXPECT_NE(r.error().message().find(key), std::string::npos) << r.error().message();
    EXPECT_TRUE(fs::is_empty(tmp_.path())) << key;
  }

  test_support::temp_directory tmp_;
};

} // namespace

TEST_F(override_directory_test, writes_config_text_and_file_bytes) {
  const std::string binary("\x00\x01\xff\x00tail", 8);
  auto r = write_override_directory(tmp_.path(), "m", config_json,
                                    {{"file:1/model.bin", binary}, {"file:1/sub/a.txt", "hi"}});
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  auto dir = *r;
  EXPECT_EQ(dir.filename(), "m");
  EXPECT_EQ(dir.parent_path().parent_path(), tmp_.path());
  EXPECT_EQ(test_support::read_bytes(dir / "1" / "model.bin"), binary);
  EXPECT_EQ(test_support::read_bytes(dir / "1" / "sub" / "a.txt"), "hi");
  auto text = test_support::read_bytes(dir / "config.pbtxt");
  EXPECT_NE(text.find("name: \"m\""), std::string::npos) << text;
  EXPECT_NE(text.find("backend: \"python\""), std::string::npos) << text;
  EXPECT_NE(text.find("max_batch_size: 4"), std::string::npos) << text;
}

TEST_F(override_directory_test, leading_slashes_join_under_the_model_folder) {
  auto r = write_override_directory(tmp_.path(), "m", config_json,
                                    {{"file:/1/model.py", "a"}, {"file:///2/x/b.txt", "b"}});
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ(test_support::read_bytes(*r / "1" / "model.py"), "a");
  EXPECT_EQ(test_support::read_bytes(*r / "2" / "x" / "b.txt"), "b");
  auto escape = write_override_directory(tmp_.path(), "m", config_json, {{"file:/../1/x", "c"}});
  ASSERT_FALSE(escape.has_value());
  EXPECT_EQ(escape.error().message(), "Invalid file parameter 'file:/../1/x' with normalized "
                                      "path '../1/x' must stay within model directory.");
}

TEST_F(override_directory_test, each_call_gets_a_fresh_directory) {
  auto a = write_override_directory(tmp_.path(), "m", config_json, {});
  auto b = write_override_directory(tmp_.path(), "m", config_json, {});
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_NE(*a, *b);
  EXPECT_TRUE(fs::exists(*a / "config.pbtxt"));
  EXPECT_TRUE(fs::exists(*b / "config.pbtxt"));
}

TEST_F(override_directory_test, rejects_bad_file_keys) {
  expect_rejected("nofileprefix");
  expect_rejected("file:../x");
  expect_rejected("file:1/../../x");
  expect_rejected("file:/abs");  // "abs": no version folder
  expect_rejected("file:model.py");
  expect_rejected("file:1/");
  expect_rejected("file:");
}

TEST_F(override_directory_test, rejects_missing_or_malformed_config) {
  auto empty = write_override_directory(tmp_.path(), "m", "", {{"file:1/model.py", "x"}});
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code(), errc::invalid_argument);
  auto bad = write_override_directory(tmp_.path(), "m", "{not json", {{"file:1/model.py", "x"}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), errc::invalid_argument);
  EXPECT_NE(bad.error().message().find("Invalid config override"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(tmp_.path()));
}

TEST_F(override_directory_test, rejects_model_names_that_are_not_a_directory_name) {
  for (const char* name : {"", "..", "a/b"}) {
    auto r = write_override_directory(tmp_.path(), name, config_json, {});
    ASSERT_FALSE(r.has_value()) << name;
    EXPECT_EQ(r.error().code(), errc::invalid_argument);
  }
}

TEST_F(override_directory_test, remove_deletes_the_directory_and_its_unique_parent) {
  auto r = write_override_directory(tmp_.path(), "m", config_json, {{"file:1/x", "y"}});
  ASSERT_TRUE(r.has_value());
  remove_override_directory(*r);
  EXPECT_FALSE(fs::exists(*r));
  EXPECT_TRUE(fs::is_empty(tmp_.path()));
  EXPECT_NO_THROW(remove_override_directory(*r));
}

TEST_F(override_directory_test, remove_leaves_unrelated_directories_alone) {
  auto unrelated = tmp_.make_dir("repo/m");
  remove_override_directory(unrelated);
  EXPECT_TRUE(fs::exists(unrelated));
}

namespace {

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Sets the umask for one scope.
class scoped_umask {
 public:
  explicit scoped_umask(mode_t mask) : old_(::umask(mask)) {}
  ~scoped_umask() { ::umask(old_); }

 private:
  mode_t old_;
};

} // namespace

TEST_F(override_directory_test, a_component_longer_than_name_max_is_a_poll_failure) {
  // Traversal is still refused first, as INVALID_ARG.
  expect_rejected("file:../" + std::string(300, 'A'));
  // Triton fails to write such a file and reports the poll as failed (a
  // leading slash joins under the model's folder, as Triton joins it).
  for (const auto& key : {"file:" + std::string(256, 'A'), "file:1/" + std::string(256, 'A'),
                          "file:" + std::string(256, 'A') + "/model.py",
                          "file:/" + std::string(300, 'A')}) {
    auto r = write_override_directory(tmp_.path() / "base", "m", config_json, {{key, "a"}});
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code(), errc::internal);
    EXPECT_EQ(r.error().message().rfind(
                "failed to load 'm', failed to poll from model repository: Invalid file path", 0),
              0u)
      << r.error().message();
    EXPECT_FALSE(fs::exists(tmp_.path() / "base") && !fs::is_empty(tmp_.path() / "base"));
  }
  auto longest = "file:1/" + std::string(255, 'A');
  auto r = write_override_directory(tmp_.path(), "m", config_json, {{longest, "a"}});
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
}

TEST_F(override_directory_test, what_it_writes_is_private_whatever_the_umask) {
  for (mode_t mask : {mode_t{0}, mode_t{0022}, mode_t{0777}}) {
    scoped_umask umask{mask};
    auto base = tmp_.path() / ("base" + std::to_string(mask));
    auto r = write_override_directory(base, "m", config_json, {{"file:1/sub/model.py", "x"}});
    ASSERT_TRUE(r.has_value()) << r.error().to_string();
    for (const auto& dir : {base, r->parent_path(), *r, *r / "1", *r / "1" / "sub"})
      EXPECT_EQ(mode_of(dir), 0700u) << dir << " umask " << mask;
    for (const auto& file : {*r / "config.pbtxt", *r / "1" / "sub" / "model.py"})
      EXPECT_EQ(mode_of(file), 0600u) << file << " umask " << mask;
  }
}

TEST_F(override_directory_test, an_open_base_is_made_private_and_a_linked_one_refused) {
  auto open = tmp_.make_dir("open");
  fs::permissions(open, fs::perms::all);
  auto r = write_override_directory(open, "m", config_json, {});
  ASSERT_TRUE(r.has_value()) << r.error().to_string();
  EXPECT_EQ(mode_of(open), 0700u);

  auto target = tmp_.make_dir("target");
  fs::create_directory_symlink(target, tmp_.path() / "link");
  r = write_override_directory(tmp_.path() / "link", "m", config_json, {});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), errc::internal);
  EXPECT_NE(r.error().message().find("not a private directory"), std::string::npos)
    << r.error().message();
  EXPECT_TRUE(fs::is_empty(target));
}

TEST_F(override_directory_test, a_directory_given_as_a_file_is_refused) {
  auto r = write_override_directory(tmp_.path(), "m", config_json,
                                    {{"file:1/a", "x"}, {"file:1/a/b", "y"}});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), errc::invalid_argument);
  EXPECT_NE(r.error().message().find("file:1/a/b"), std::string::npos) << r.error().message();
  EXPECT_TRUE(fs::is_empty(tmp_.path()));
}
