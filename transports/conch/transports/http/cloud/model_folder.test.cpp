#include "conch/transports/http/cloud/model_folder.hpp"

#include <fstream>

#include <sys/stat.h>

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

TEST(model_folder, the_ensemble_is_found_by_its_platform_line) {
  temp_directory tmp;
  auto ensemble_of = [&](const std::string& name, const std::string& config) {
    auto repo = tmp.path() / name;
    write_config(repo / "step", "backend: \"python\"\n");
    write_config(repo / "pipeline", config);
    auto f = locate_model_folder(repo.string());
    return f ? f->directory : f.error().message();
  };
  EXPECT_EQ(ensemble_of("tabs", "name: \"p\"\nplatform:\n\t \"ensemble\"\n"), "pipeline");
  EXPECT_EQ(ensemble_of("twice", "# platform: x\nplatform:\"ensemble\""), "pipeline");
  // A megabyte of white space, which std::regex recursed over per byte.
  EXPECT_EQ(ensemble_of("spaces", "platform:" + std::string(1 << 20, ' ') + "\"ensemble\""),
            "pipeline");
  EXPECT_NE(ensemble_of("other", "platform: \"ensemble_x\""), "pipeline");
  EXPECT_NE(ensemble_of("unquoted", "platform: ensemble"), "pipeline");
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

TEST(model_folder, links_into_system_folders_are_refused_after_resolution) {
  temp_directory tmp;
  // None of these urls is a system path as written.
  fs::create_directory_symlink("/proc/self/root/dev", tmp.path() / "via_root");
  fs::create_directory_symlink("/proc/self/fd", tmp.path() / "via_fd");
  fs::create_directory_symlink("/dev", tmp.path() / "via_dev");
  for (const auto& url : {tmp.path() / "via_root" / "shm" / "model", tmp.path() / "via_fd",
                          tmp.path() / "via_dev" / "shm",
                          tmp.path() / "via_dev" / "shm" / "missing"}) {
    auto f = locate_model_folder(url.string());
    ASSERT_FALSE(f) << url;
    EXPECT_EQ(f.error().code(), runtime::errc::invalid_argument);
    EXPECT_NE(f.error().message().find("cannot start with /dev/, /proc/, or /sys/"),
              std::string::npos)
      << f.error().message();
  }
  // A repository whose model directory is such a link is refused too.
  fs::create_directories(tmp.path() / "repo");
  fs::create_directory_symlink("/proc/self/root/dev/shm", tmp.path() / "repo" / "m");
  auto f = locate_model_folder((tmp.path() / "repo").string());
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("cannot start with"), std::string::npos);
}

TEST(model_folder, an_ordinary_link_is_followed_to_its_target) {
  temp_directory tmp;
  write_config(tmp.path() / "real" / "model", "backend: \"python\"\n");
  fs::create_directory_symlink(tmp.path() / "real", tmp.path() / "alias");
  auto f = locate_model_folder((tmp.path() / "alias" / "model").string());
  ASSERT_TRUE(f) << f.error().message();
  EXPECT_EQ(f->repository, fs::canonical(tmp.path() / "real").string());
  EXPECT_EQ(f->directory, "model");
}

TEST(model_folder, a_nul_byte_is_refused) {
  auto f = locate_model_folder(std::string{"/tmp/x\0/../../dev/shm", 21});
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().code(), runtime::errc::invalid_argument);
}

TEST(model_folder, a_fifo_or_device_as_config_is_not_read) {
  temp_directory tmp;
  auto repo = tmp.path() / "repo";
  fs::create_directories(repo / "fifo");
  ASSERT_EQ(::mkfifo((repo / "fifo" / "config.pbtxt").c_str(), 0600), 0);
  fs::create_directories(repo / "zero");
  fs::create_symlink("/dev/zero", repo / "zero" / "config.pbtxt");
  // Would block on the FIFO or read /dev/zero for ever.
  auto f = locate_model_folder(repo.string());
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("2 model directories and no ensemble"), std::string::npos)
    << f.error().message();
}

} // namespace
} // namespace conch::transports::http::cloud
