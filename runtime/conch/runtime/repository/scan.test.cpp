#include "conch/runtime/repository/scan.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/repository/temp_directory.test.hpp"

using namespace conch::runtime;
using namespace conch::runtime::repository;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> names_of(const scan_result& r) {
  std::vector<std::string> out;
  for (const auto& m : r.models)
    out.push_back(m.name);
  return out;
}

class scan_test : public ::testing::Test {
 protected:
  test_support::temp_directory tmp_;
};

} // namespace

TEST_F(scan_test, missing_repository_is_an_error_keyed_by_its_path) {
  auto missing = tmp_.path() / "nowhere";
  auto r = scan({missing});
  EXPECT_TRUE(r.models.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].first, missing.string());
  EXPECT_EQ(r.errors[0].second.message(), "failed to stat file " + missing.string());
}

TEST_F(scan_test, repository_that_is_a_file_is_an_error) {
  auto file = tmp_.write("repo_file", "x");
  auto r = scan({file});
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].first, file.string());
  EXPECT_NE(r.errors[0].second.message().find("not a directory"), std::string::npos);
}

TEST_F(scan_test, empty_repository_has_no_models_and_no_errors) {
  auto repo = tmp_.make_dir("repo");
  auto r = scan({repo});
  EXPECT_TRUE(r.models.empty());
  EXPECT_TRUE(r.errors.empty());
}

TEST_F(scan_test, lists_subdirectories_sorted_and_skips_hidden_entries_and_files) {
  auto repo = tmp_.make_dir("repo");
  tmp_.make_dir("repo/zeta");
  tmp_.make_dir("repo/alpha/1");
  tmp_.make_dir("repo/.hidden");
  tmp_.write("repo/README.md", "not a model");
  tmp_.write("repo/.dotfile", "");
  auto r = scan({repo});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(names_of(r), (std::vector<std::string>{"alpha", "zeta"}));
  EXPECT_EQ(r.models[0].repository, repo);
  EXPECT_EQ(r.models[0].path, repo / "alpha");
}

TEST_F(scan_test, follows_symbolic_links_to_model_directories) {
  auto repo = tmp_.make_dir("repo");
  auto elsewhere = tmp_.make_dir("elsewhere/real_model");
  fs::create_directory_symlink(elsewhere, repo / "linked");
  fs::create_symlink(tmp_.path() / "missing_target", repo / "dangling");
  auto r = scan({repo});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(names_of(r), (std::vector<std::string>{"linked"}));
  EXPECT_EQ(r.models[0].path, repo / "linked");
}

TEST_F(scan_test, model_in_two_repositories_is_an_error_and_not_listed) {
  auto a = tmp_.make_dir("a");
  auto b = tmp_.make_dir("b");
  tmp_.make_dir("a/shared");
  tmp_.make_dir("b/shared");
  tmp_.make_dir("a/only_a");
  tmp_.make_dir("b/only_b");
  auto r = scan({a, b});
  EXPECT_EQ(names_of(r), (std::vector<std::string>{"only_a", "only_b"}));
  EXPECT_EQ(r.models[1].repository, b);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].first, "shared");
  EXPECT_EQ(r.errors[0].second.message(), "model 'shared' appears in multiple repositories");
}

TEST_F(scan_test, a_bad_repository_does_not_hide_the_good_ones) {
  auto good = tmp_.make_dir("good");
  tmp_.make_dir("good/m");
  auto r = scan({tmp_.path() / "missing", good});
  EXPECT_EQ(names_of(r), (std::vector<std::string>{"m"}));
  EXPECT_EQ(r.errors.size(), 1u);
}

TEST_F(scan_test, find_locates_a_model_held_by_exactly_one_repository) {
  auto a = tmp_.make_dir("a");
  auto b = tmp_.make_dir("b");
  tmp_.make_dir("b/m");
  tmp_.make_dir("a/dup");
  tmp_.make_dir("b/dup");
  tmp_.write("a/file_model", "");
  auto found = find({a, b}, "m");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->name, "m");
  EXPECT_EQ(found->repository, b);
  EXPECT_EQ(found->path, b / "m");
  EXPECT_FALSE(find({a, b}, "absent").has_value());
  EXPECT_FALSE(find({a, b}, "dup").has_value());
  EXPECT_EQ(find_all({a, b}, "dup").size(), 2u);
  EXPECT_FALSE(find({a, b}, "file_model").has_value());
}

TEST_F(scan_test, find_rejects_names_that_leave_the_repository) {
  auto repo = tmp_.make_dir("repo");
  tmp_.make_dir("repo/m");
  EXPECT_FALSE(find({repo / "m"}, "..").has_value());
  EXPECT_FALSE(find({tmp_.path()}, "repo/m").has_value());
  EXPECT_FALSE(find({repo}, "").has_value());
  EXPECT_FALSE(find({repo}, ".").has_value());
}

// -- roots with a name mapping ---------------------------------------------------

TEST_F(scan_test, a_mapped_directory_is_listed_by_its_mapped_name_only) {
  auto repo = tmp_.make_dir("repo");
  tmp_.make_dir("repo/dir_a");
  tmp_.make_dir("repo/plain");
  auto r = scan(std::vector<repository_root>{{repo, {{"dir_a", "model_a"}}}});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_EQ(names_of(r), (std::vector<std::string>{"model_a", "plain"}));
  EXPECT_EQ(r.models[0].path, repo / "dir_a");
  EXPECT_EQ(r.models[0].repository, repo);
  EXPECT_TRUE(r.models[0].mapped);
  EXPECT_FALSE(r.models[1].mapped);
}

TEST_F(scan_test, a_mapping_to_a_missing_directory_lists_nothing) {
  auto repo = tmp_.make_dir("repo");
  auto r = scan(std::vector<repository_root>{{repo, {{"absent", "model_a"}}}});
  EXPECT_TRUE(r.errors.empty());
  EXPECT_TRUE(r.models.empty());
  EXPECT_FALSE(find(std::vector<repository_root>{{repo, {{"absent", "model_a"}}}}, "model_a"));
}

TEST_F(scan_test, a_mapped_name_wins_over_unmapped_directories_of_that_name) {
  auto a = tmp_.make_dir("a");
  auto b = tmp_.make_dir("b");
  tmp_.make_dir("a/m");
  tmp_.make_dir("a/other");
  tmp_.make_dir("b/m");
  std::vector<repository_root> roots{{a, {{"other", "m"}}}, {b, {}}};
  auto r = scan(roots);
  EXPECT_TRUE(r.errors.empty());
  // a/m and b/m would clash, but the mapping names the winner.
  ASSERT_EQ(names_of(r), (std::vector<std::string>{"m"}));
  EXPECT_EQ(r.models[0].path, a / "other");
  auto found = find(roots, "m");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->path, a / "other");
  EXPECT_TRUE(found->mapped);
  EXPECT_FALSE(find(roots, "other").has_value());
}

TEST_F(scan_test, find_does_not_know_a_mapped_directory_by_its_own_name) {
  auto repo = tmp_.make_dir("repo");
  tmp_.make_dir("repo/dir_a");
  std::vector<repository_root> roots{{repo, {{"dir_a", "model_a"}}}};
  EXPECT_FALSE(find(roots, "dir_a").has_value());
  auto found = find(roots, "model_a");
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->name, "model_a");
  EXPECT_EQ(found->path, repo / "dir_a");
}

TEST_F(scan_test, two_mappings_to_one_name_are_ambiguous) {
  auto a = tmp_.make_dir("a");
  auto b = tmp_.make_dir("b");
  tmp_.make_dir("a/x");
  tmp_.make_dir("b/y");
  std::vector<repository_root> roots{{a, {{"x", "m"}}}, {b, {{"y", "m"}}}};
  auto r = scan(roots);
  EXPECT_TRUE(r.models.empty());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].first, "m");
  EXPECT_EQ(find_all(roots, "m").size(), 2u);
  EXPECT_FALSE(find(roots, "m").has_value());
}
