#include "conch/runtime/repository/registration.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/repository/temp_directory.test.hpp"

using namespace conch::runtime;
using namespace conch::runtime::repository;

namespace {

class registration_test : public ::testing::Test {
 protected:
  registration_test() {
    first_ = tmp_.make_dir("first");
    second_ = tmp_.make_dir("second");
    tmp_.make_dir("first/a");
    tmp_.make_dir("second/b");
    tmp_.make_dir("second/c");
    roots_ = {{first_, {}}};
  }

  test_support::temp_directory tmp_;
  std::filesystem::path first_;
  std::filesystem::path second_;
  std::vector<repository_root> roots_;
};

} // namespace

TEST_F(registration_test, a_new_directory_with_free_names_may_join) {
  EXPECT_TRUE(check_registration(roots_, {second_, {}}));
  EXPECT_TRUE(check_registration(roots_, {second_, {{"b", "model_b"}, {"c", "model_c"}}}));
}

TEST_F(registration_test, a_missing_path_is_an_invalid_argument) {
  auto missing = tmp_.path() / "missing";
  auto st = check_registration(roots_, {missing, {}});
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_EQ(st.message(), "failed to register '" + missing.string() + "', repository not found");
  auto file = tmp_.write("file", "x");
  EXPECT_EQ(check_registration(roots_, {file, {}}).code(), errc::invalid_argument);
  EXPECT_EQ(check_registration(roots_, {"", {}}).code(), errc::invalid_argument);
}

TEST_F(registration_test, a_registered_path_already_exists_however_it_is_spelled) {
  auto st = check_registration(roots_, {first_, {}});
  EXPECT_EQ(st.code(), errc::already_exists);
  EXPECT_EQ(st.message(), "model repository '" + first_.string() + "' has already been registered");
  EXPECT_EQ(check_registration(roots_, {first_.string() + "/", {}}).code(), errc::already_exists);
  EXPECT_EQ(check_registration(roots_, {second_ / ".." / "first", {}}).code(),
            errc::already_exists);
}

TEST_F(registration_test, two_directories_mapped_to_one_name_are_an_invalid_argument) {
  auto st = check_registration(roots_, {second_, {{"b", "same"}, {"c", "same"}}});
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("there is a conflicting mapping for 'same'"), std::string::npos)
    << st.message();
}

TEST_F(registration_test, invalid_names_in_a_mapping_are_an_invalid_argument) {
  for (auto [dir, name] : std::vector<std::pair<std::string, std::string>>{
         {"b", ""}, {"", "m"}, {"b", "x/y"}, {"b", ".."}, {"../first", "m"}}) {
    auto st = check_registration(roots_, {second_, {{dir, name}}});
    EXPECT_EQ(st.code(), errc::invalid_argument) << dir << " -> " << name;
    EXPECT_NE(st.message().find("invalid name mapping"), std::string::npos) << st.message();
  }
}

TEST_F(registration_test, a_mapped_name_used_by_another_root_already_exists) {
  // An unmapped model of another root.
  auto st = check_registration(roots_, {second_, {{"b", "a"}}});
  EXPECT_EQ(st.code(), errc::already_exists);
  EXPECT_NE(st.message().find("mapped name 'a' is already the name of a model in repository '"
                              + first_.string() + "'"),
            std::string::npos)
    << st.message();
  // Another root's mapping.
  roots_ = {{first_, {{"a", "taken"}}}};
  st = check_registration(roots_, {second_, {{"b", "taken"}}});
  EXPECT_EQ(st.code(), errc::already_exists);
  EXPECT_NE(st.message().find("there is a conflicting mapping for 'taken'"), std::string::npos)
    << st.message();
  // A directory mapped away no longer holds its own name.
  EXPECT_TRUE(check_registration(roots_, {second_, {{"b", "a"}}}));
}

TEST_F(registration_test, a_mapping_may_shadow_a_directory_of_its_own_root) {
  EXPECT_TRUE(check_registration(roots_, {second_, {{"b", "c"}}}));
}

TEST_F(registration_test, remove_root_forgets_the_path_or_says_it_was_not_found) {
  roots_.push_back({second_, {{"b", "model_b"}}});
  EXPECT_TRUE(remove_root(roots_, second_.string() + "/"));
  ASSERT_EQ(roots_.size(), 1u);
  EXPECT_EQ(roots_[0].path, first_);
  auto st = remove_root(roots_, second_);
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_EQ(st.message(), "failed to unregister '" + second_.string() + "', repository not found");
}
