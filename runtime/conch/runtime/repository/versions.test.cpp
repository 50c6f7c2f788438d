#include "conch/runtime/repository/versions.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/repository/temp_directory.test.hpp"

using namespace conch::runtime::repository;
namespace fs = std::filesystem;

namespace {

using versions = std::vector<int64_t>;

inference::ModelVersionPolicy latest(uint32_t n) {
  inference::ModelVersionPolicy p;
  p.mutable_latest()->set_num_versions(n);
  return p;
}

inference::ModelVersionPolicy specific(std::initializer_list<int64_t> list) {
  inference::ModelVersionPolicy p;
  for (auto v : list)
    p.mutable_specific()->add_versions(v);
  return p;
}

class versions_test : public ::testing::Test {
 protected:
  test_support::temp_directory tmp_;
};

} // namespace

TEST_F(versions_test, only_plain_numeric_directories_count) {
  auto model = tmp_.make_dir("m");
  for (const char* name : {"3", "1", "20", "0", "abc", "1abc", "+4", "-5", "007",
                           "99999999999999999999", ".7"})
    tmp_.make_dir(fs::path("m") / name);
  tmp_.write("m/8", "a file, not a version");
  tmp_.write("m/config.pbtxt", "");
  EXPECT_EQ(version_directories(model), (versions{0, 1, 3, 20}));
}

TEST_F(versions_test, largest_int64_is_accepted) {
  auto model = tmp_.make_dir("m");
  tmp_.make_dir("m/9223372036854775807");
  tmp_.make_dir("m/9223372036854775808");
  EXPECT_EQ(version_directories(model), (versions{9223372036854775807}));
}

TEST_F(versions_test, symbolic_links_to_directories_are_followed) {
  auto model = tmp_.make_dir("m");
  auto target = tmp_.make_dir("elsewhere");
  fs::create_directory_symlink(target, model / "5");
  fs::create_symlink(tmp_.path() / "gone", model / "6");
  EXPECT_EQ(version_directories(model), (versions{5}));
}

TEST_F(versions_test, missing_model_directory_has_no_versions) {
  EXPECT_TRUE(version_directories(tmp_.path() / "absent").empty());
}

TEST(select_versions, latest_one_is_the_highest) {
  EXPECT_EQ(select_versions(latest(1), {1, 7, 3}), (versions{7}));
}

TEST(select_versions, latest_two_are_the_two_highest) {
  EXPECT_EQ(select_versions(latest(2), {1, 7, 3}), (versions{3, 7}));
  EXPECT_EQ(select_versions(latest(5), {2}), (versions{2}));
}

TEST(select_versions, no_choice_means_latest_one) {
  EXPECT_EQ(select_versions(inference::ModelVersionPolicy{}, {4, 2}), (versions{4}));
}

TEST(select_versions, all_is_every_version) {
  inference::ModelVersionPolicy p;
  p.mutable_all();
  EXPECT_EQ(select_versions(p, {3, 1, 2}), (versions{1, 2, 3}));
}

TEST(select_versions, specific_keeps_the_listed_versions_that_exist) {
  auto p = specific({3, 9, 1});
  EXPECT_EQ(select_versions(p, {1, 2, 3}), (versions{1, 3}));
  EXPECT_EQ(missing_specific_versions(p, {1, 2, 3}), (versions{9}));
}

TEST(select_versions, missing_is_empty_for_other_policies_and_lists_each_once) {
  EXPECT_TRUE(missing_specific_versions(latest(3), {}).empty());
  EXPECT_EQ(missing_specific_versions(specific({4, 4, 5}), {5}), (versions{4}));
}

TEST(select_versions, nothing_available_selects_nothing) {
  EXPECT_TRUE(select_versions(latest(1), {}).empty());
}
