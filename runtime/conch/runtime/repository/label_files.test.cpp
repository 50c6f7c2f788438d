#include "conch/runtime/repository/label_files.hpp"

#include <fstream>

#include <gtest/gtest.h>

#include "conch/runtime/repository/temp_directory.test.hpp"

namespace conch::runtime::repository {
namespace {

inference::ModelConfig config_with_outputs(std::vector<std::pair<std::string, std::string>> outs) {
  inference::ModelConfig c;
  for (auto& [name, file] : outs) {
    auto* o = c.add_output();
    o->set_name(name);
    o->set_label_filename(file);
  }
  return c;
}

TEST(label_files, no_label_file_gives_no_table) {
  test_support::temp_directory dir;
  auto labels = load_output_labels(config_with_outputs({{"OUT", ""}}), dir.path());
  ASSERT_TRUE(labels) << labels.error().to_string();
  EXPECT_EQ(*labels, nullptr);
}

TEST(label_files, reads_one_label_per_line_for_each_output) {
  test_support::temp_directory dir;
  std::ofstream(dir.path() / "a.txt") << "cat\r\ndog\n\nbird\n";
  std::ofstream(dir.path() / "b.txt") << "yes\nno";
  auto labels = load_output_labels(config_with_outputs({{"A", "a.txt"}, {"B", "b.txt"}, {"C", ""}}),
                                   dir.path());
  ASSERT_TRUE(labels) << labels.error().to_string();
  ASSERT_NE(*labels, nullptr);
  ASSERT_NE((*labels)->find("A"), nullptr);
  EXPECT_EQ(*(*labels)->find("A"), (std::vector<std::string>{"cat", "dog", "", "bird"}));
  EXPECT_EQ(*(*labels)->find("B"), (std::vector<std::string>{"yes", "no"}));
  EXPECT_EQ((*labels)->find("C"), nullptr);
}

TEST(label_files, a_missing_file_names_the_output_and_the_path) {
  test_support::temp_directory dir;
  auto labels = load_output_labels(config_with_outputs({{"OUT", "missing.txt"}}), dir.path());
  ASSERT_FALSE(labels);
  EXPECT_EQ(labels.error().code(), errc::invalid_argument);
  EXPECT_NE(labels.error().message().find("missing.txt"), std::string::npos);
  EXPECT_NE(labels.error().message().find("'OUT'"), std::string::npos);
}

TEST(label_files, a_name_leading_out_of_the_model_directory_is_refused) {
  test_support::temp_directory dir;
  auto model = dir.make_dir("model");
  dir.write("secret.txt", "s3cr3t\n");
  std::filesystem::create_symlink(dir.path() / "secret.txt", model / "link.txt");
  for (const auto& name : {(dir.path() / "secret.txt").string(), std::string{"../secret.txt"},
                           std::string{"link.txt"}}) {
    auto labels = load_output_labels(config_with_outputs({{"OUT", name}}), model);
    ASSERT_FALSE(labels) << name;
    EXPECT_EQ(labels.error().code(), errc::invalid_argument) << name;
    EXPECT_NE(labels.error().message().find("'OUT'"), std::string::npos)
      << labels.error().message();
  }
  // A link that stays inside is followed.
  dir.write("model/real.txt", "a\n");
  std::filesystem::create_symlink(model / "real.txt", model / "alias.txt");
  auto labels = load_output_labels(config_with_outputs({{"OUT", "alias.txt"}}), model);
  ASSERT_TRUE(labels) << labels.error().to_string();
  EXPECT_EQ(*(*labels)->find("OUT"), (std::vector<std::string>{"a"}));
}

} // namespace
} // namespace conch::runtime::repository
