#include "conch/transports/http/cloud/model_folder.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "conch/runtime/repository/temp_directory.test.hpp"

namespace conch::transports::http::cloud {
namespace {

namespace fs = std::filesystem;
using runtime::repository::test_support::temp_directory;

void write_config(const fs::path& dir, const std::string& text) {
  fs::create_directories(dir);
  std::ofstream{dir / "config.pbtxt"} << text;
}

TEST(model_folder, a_folder_with_a_config_is_the_model_and_its_parent_the_repository) {
  temp_directory tmp;
  write_config(tmp.path() / "abc" / "model", "backend: \"python\"\n");
  for (const auto& url : {tmp.path() / "abc" / "model", tmp.path() / "abc" / "model" / ""}) {
    auto f = locate_model_folder(url.string());
    ASSERT_TRUE(f) << f.error().message();
    EXPECT_EQ(f->repository, (tmp.path() / "abc").string());
    EXPECT_EQ(f->directory, "model");
  }
}

TEST(model_folder, a_repository_with_one_model_or_one_ensemble_names_it) {
  temp_directory tmp;
  write_config(tmp.path() / "one" / "only", "backend: \"python\"\n");
  auto f = locate_model_folder((tmp.path() / "one").string());
  ASSERT_TRUE(f) << f.error().message();
  EXPECT_EQ(f->repository, (tmp.path() / "one").string());
  EXPECT_EQ(f->directory, "only");

  write_config(tmp.path() / "ens" / "step_a", "backend: \"python\"\n");
  write_config(tmp.path() / "ens" / "step_b", "backend: \"python\"\n");
  write_config(tmp.path() / "ens" / "pipeline", "platform:  \"ensemble\"\n");
  f = locate_model_folder((tmp.path() / "ens" / "step_a" / "..").string());
  ASSERT_TRUE(f) << f.error().message();
  EXPECT_EQ(f->repository, (tmp.path() / "ens").string());
  EXPECT_EQ(f->directory, "pipeline");
}

TEST(model_folder, an_ambiguous_or_empty_repository_is_refused) {
  temp_directory tmp;
  write_config(tmp.path() / "two" / "a", "backend: \"python\"\n");
  write_config(tmp.path() / "two" / "b", "backend: \"python\"\n");
  auto f = locate_model_folder((tmp.path() / "two").string());
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("2 model directories and no ensemble"), std::string::npos)
    << f.error().message();
  fs::create_directories(tmp.path() / "empty");
  f = locate_model_folder((tmp.path() / "empty").string());
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("neither a config.pbtxt nor a model directory"),
            std::string::npos);
}

TEST(model_folder, a_missing_folder_is_left_to_the_registry) {
  temp_directory tmp;
  auto f = locate_model_folder((tmp.path() / "missing").string());
  ASSERT_TRUE(f);
  EXPECT_EQ(f->repository, (tmp.path() / "missing").string());
  EXPECT_EQ(f->directory, "");
}

TEST(model_folder, system_folders_are_refused_after_normalisation) {
  for (const char* url : {"/dev/shm/x", "/proc/self", "/sys", "/opt/../dev/null", "/dev"}) {
    auto f = locate_model_folder(url);
    ASSERT_FALSE(f) << url;
    EXPECT_NE(f.error().message().find("cannot start with /dev/, /proc/, or /sys/"),
              std::string::npos);
  }
  EXPECT_TRUE(locate_model_folder("/device/x"));
}

} // namespace
} // namespace conch::transports::http::cloud
