#include "conch/runtime/repository/fingerprint.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/repository/temp_directory.test.hpp"

using namespace conch::runtime::repository;
namespace fs = std::filesystem;

namespace {

class fingerprint_test : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = tmp_.make_dir("m");
    tmp_.write("m/config.pbtxt", "name: \"m\"\n");
    tmp_.write("m/1/model.py", "print(1)\n");
  }

  test_support::temp_directory tmp_;
  fs::path model_;
};

} // namespace

TEST_F(fingerprint_test, stays_equal_while_nothing_changes) {
  auto first = fingerprint(model_);
  EXPECT_NE(first, 0u);
  EXPECT_EQ(fingerprint(model_), first);
}

TEST_F(fingerprint_test, changes_when_a_file_changes) {
  auto before = fingerprint(model_);
  tmp_.write("m/1/model.py", "print('a longer body')\n");
  EXPECT_NE(fingerprint(model_), before);
}

TEST_F(fingerprint_test, changes_when_a_file_or_version_appears) {
  auto before = fingerprint(model_);
  tmp_.write("m/1/extra.bin", "x");
  auto with_file = fingerprint(model_);
  EXPECT_NE(with_file, before);
  tmp_.make_dir("m/2");
  EXPECT_NE(fingerprint(model_), with_file);
}

TEST_F(fingerprint_test, changes_when_a_file_disappears) {
  auto before = fingerprint(model_);
  fs::remove(model_ / "config.pbtxt");
  EXPECT_NE(fingerprint(model_), before);
}

TEST_F(fingerprint_test, sees_through_symbolic_links) {
  auto target = tmp_.make_dir("shared_weights");
  tmp_.write("shared_weights/w.bin", "1");
  fs::create_directory_symlink(target, model_ / "2");
  auto before = fingerprint(model_);
  tmp_.write("shared_weights/w.bin", "12");
  EXPECT_NE(fingerprint(model_), before);
}

TEST_F(fingerprint_test, survives_a_link_loop) {
  fs::create_directory_symlink(model_, model_ / "1" / "loop");
  auto first = fingerprint(model_);
  EXPECT_NE(first, 0u);
  EXPECT_EQ(fingerprint(model_), first);
}

TEST_F(fingerprint_test, removed_directory_returns_zero_without_throwing) {
  fs::remove_all(model_);
  uint64_t value = 1;
  EXPECT_NO_THROW(value = fingerprint(model_));
  EXPECT_EQ(value, 0u);
}
