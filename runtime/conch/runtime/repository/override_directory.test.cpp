#include "conch/runtime/repository/override_directory.hpp"

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
  expect_rejected("file:/abs");
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
