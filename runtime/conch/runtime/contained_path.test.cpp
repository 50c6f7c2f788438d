#include "conch/runtime/contained_path.hpp"

#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace conch::runtime {
namespace {

namespace fs = std::filesystem;

// A fresh directory, removed with its contents at the end of the test.
class contained_path_test : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "conch_contained_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = fs::canonical(pattern);
    fs::create_directories(root_ / "model" / "1" / "sub");
    std::ofstream{root_ / "model" / "1" / "model.py"} << "x";
    std::ofstream{root_ / "outside.py"} << "x";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  fs::path root_;
};

TEST(check_relative_name, refuses_absolute_names_parent_components_and_nul) {
  for (std::string_view good : {"", "model.py", "sub/model.py", "./model.py", "a..b", "..a/b"})
    EXPECT_TRUE(check_relative_name(good).is_ok()) << good;
  for (std::string_view bad : {"/etc/passwd", "..", "../x.py", "sub/../../x.py", "sub/..",
                               "a/../b"}) {
    auto st = check_relative_name(bad);
    EXPECT_EQ(st.code(), errc::invalid_argument) << bad;
  }
  EXPECT_EQ(check_relative_name(std::string_view{"a\0b", 3}).code(), errc::invalid_argument);
}

TEST_F(contained_path_test, a_name_inside_resolves_to_its_file) {
  auto base = root_ / "model" / "1";
  auto r = resolve_within(base, "model.py");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, base / "model.py");
  r = resolve_within(base, "sub/missing.py");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, base / "sub" / "missing.py");
}

TEST_F(contained_path_test, a_link_out_of_the_base_is_refused) {
  auto base = root_ / "model" / "1";
  fs::create_symlink(root_ / "outside.py", base / "link.py");
  fs::create_directory_symlink(root_, base / "up");
  for (const char* name : {"link.py", "up/outside.py", "up"}) {
    auto r = resolve_within(base, name);
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error().code(), errc::invalid_argument);
    EXPECT_NE(r.error().message().find("outside"), std::string::npos) << r.error().message();
  }
  // A lexical escape never reaches the file system.
  EXPECT_FALSE(resolve_within(base, "../../outside.py"));
  EXPECT_FALSE(resolve_within(base, (root_ / "outside.py").string()));
}

TEST_F(contained_path_test, a_linked_base_is_resolved_before_the_comparison) {
  fs::create_directory_symlink(root_ / "model", root_ / "alias");
  auto r = resolve_within(root_ / "alias" / "1", "model.py");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, root_ / "model" / "1" / "model.py");
}

TEST(is_within, compares_whole_components) {
  EXPECT_TRUE(is_within("/a/b", "/a/b"));
  EXPECT_TRUE(is_within("/a/b", "/a/b/c"));
  EXPECT_TRUE(is_within("/a/b/", "/a/b/c"));
  EXPECT_FALSE(is_within("/a/b", "/a/bc"));
  EXPECT_FALSE(is_within("/a/b", "/a"));
}

} // namespace
} // namespace conch::runtime
