#include "conch/runtime/repository/model_config_loader.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/backends/registry.hpp"
#include "conch/runtime/repository/temp_directory.test.hpp"

using namespace conch::runtime;
using namespace conch::runtime::repository;
namespace fs = std::filesystem;

namespace {

const char* valid_config = R"(
name: "m"
backend: "identity"
max_batch_size: 8
input [{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 4 ] }]
output [{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 4 ] }]
)";

// A backend whose completer leaves a visible mark, registered once.
const std::string marking_backend = "conch_repository_test_marking";

void register_marking_backend() {
  backends::backend_entry entry;
  entry.name = marking_backend;
  entry.complete_config = [](inference::ModelConfig& config, const fs::path&) {
    (*config.mutable_parameters())["completed"].set_string_value("yes");
    return status::ok();
  };
  backends::registry::global().add(std::move(entry));
}

class model_config_loader_test : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = tmp_.make_dir("repo");
    location_ = model_location{"m", repo_, tmp_.make_dir("repo/m")};
  }

  config_load_options strict() const { return {}; }

  config_load_options lenient() const {
    config_load_options options;
    options.strict_model_config = false;
    return options;
  }

  std::string config_file() const { return (location_.path / "config.pbtxt").string(); }

  test_support::temp_directory tmp_;
  fs::path repo_;
  model_location location_;
};

} // namespace

TEST_F(model_config_loader_test, reads_and_normalises_a_valid_file) {
  tmp_.write("repo/m/config.pbtxt", valid_config);
  tmp_.make_dir("repo/m/1");
  auto config = load_model_config(location_, strict());
  ASSERT_TRUE(config.has_value()) << config.error().to_string();
  EXPECT_EQ(config->name(), "m");
  EXPECT_EQ(config->backend(), "identity");
  EXPECT_EQ(config->max_batch_size(), 8);
  // Normalisation ran: a default instance group and version policy exist.
  EXPECT_GE(config->instance_group_size(), 1);
  EXPECT_TRUE(config->has_version_policy());
}

TEST_F(model_config_loader_test, missing_file_in_strict_mode_names_the_file) {
  tmp_.write("repo/m/1/model.py", "");
  auto config = load_model_config(location_, strict());
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code(), errc::invalid_argument);
  EXPECT_NE(config.error().message().find(config_file()), std::string::npos)
    << config.error().message();
}

TEST_F(model_config_loader_test, missing_file_without_strict_guesses_python_from_model_py) {
  tmp_.write("repo/m/1/model.py", "");
  auto config = load_model_config(location_, lenient());
  ASSERT_TRUE(config.has_value()) << config.error().to_string();
  EXPECT_EQ(config->name(), "m");
  EXPECT_EQ(config->backend(), "python");
}

TEST_F(model_config_loader_test, missing_file_without_strict_guesses_onnxruntime) {
  tmp_.write("repo/m/3/model.onnx", "");
  auto config = load_model_config(location_, lenient());
  ASSERT_TRUE(config.has_value()) << config.error().to_string();
  EXPECT_EQ(config->backend(), "onnxruntime");
}

TEST_F(model_config_loader_test, missing_file_and_no_model_file_is_an_error) {
  tmp_.write("repo/m/1/weights.bin", "");
  auto config = load_model_config(location_, lenient());
  ASSERT_FALSE(config.has_value());
  EXPECT_NE(config.error().message().find(config_file()), std::string::npos)
    << config.error().message();
}

TEST_F(model_config_loader_test, override_json_is_used_instead_of_the_file) {
  tmp_.write("repo/m/config.pbtxt", valid_config);
  tmp_.make_dir("repo/m/1");
  const std::string json = R"({"name":"m","backend":"identity","max_batch_size":2,
    "input":[{"name":"IN","data_type":"TYPE_INT32","dims":[1]}],
    "output":[{"name":"OUT","data_type":"TYPE_INT32","dims":[1]}]})";
  auto config = load_model_config(location_, strict(), json);
  ASSERT_TRUE(config.has_value()) << config.error().to_string();
  EXPECT_EQ(config->max_batch_size(), 2);
  ASSERT_EQ(config->input_size(), 1);
  EXPECT_EQ(config->input(0).name(), "IN");
}

TEST_F(model_config_loader_test, override_json_needs_no_file_even_when_strict) {
  tmp_.make_dir("repo/m/1");
  auto config = load_model_config(location_, strict(), std::string(R"({"backend":"identity",
    "input":[{"name":"IN","data_type":"TYPE_FP32","dims":[1]}],
    "output":[{"name":"OUT","data_type":"TYPE_FP32","dims":[1]}]})"));
  ASSERT_TRUE(config.has_value()) << config.error().to_string();
  EXPECT_EQ(config->name(), "m");
}

TEST_F(model_config_loader_test, malformed_override_is_invalid_argument) {
  auto config = load_model_config(location_, strict(), std::string("{\"max_batch_size\":"));
  ASSERT_FALSE(config.has_value());
  EXPECT_EQ(config.error().code(), errc::invalid_argument);
  EXPECT_NE(config.error().message().find("Invalid config override"), std::string::npos)
    << config.error().message();
}

TEST_F(model_config_loader_test, malformed_file_error_names_the_file) {
  tmp_.write("repo/m/config.pbtxt", "name: \"m\"\nmax_batch_size: [oops\n");
  auto config = load_model_config(location_, strict());
  ASSERT_FALSE(config.has_value());
  EXPECT_NE(config.error().message().find(config_file()), std::string::npos)
    << config.error().message();
}

TEST_F(model_config_loader_test, backend_completer_runs_only_without_strict) {
  register_marking_backend();
  std::string text = valid_config;
  text.replace(text.find("identity"), 8, marking_backend);
  tmp_.write("repo/m/config.pbtxt", text);
  tmp_.make_dir("repo/m/1");
  auto lenient_config = load_model_config(location_, lenient());
  ASSERT_TRUE(lenient_config.has_value()) << lenient_config.error().to_string();
  EXPECT_EQ(lenient_config->parameters().count("completed"), 1u);
  auto strict_config = load_model_config(location_, strict());
  ASSERT_TRUE(strict_config.has_value()) << strict_config.error().to_string();
  EXPECT_EQ(strict_config->parameters().count("completed"), 0u);
}

TEST_F(model_config_loader_test, a_mapped_location_gives_the_configuration_its_mapped_name) {
  tmp_.write("repo/m/config.pbtxt", valid_config);
  tmp_.make_dir("repo/m/1");
  model_location mapped{"renamed", repo_, location_.path, true};
  auto config = load_model_config(mapped, strict());
  ASSERT_TRUE(config.has_value()) << config.error().to_string();
  EXPECT_EQ(config->name(), "renamed");
  // Unmapped, a name that differs from the directory's stays an error.
  model_location unmapped{"renamed", repo_, location_.path, false};
  EXPECT_FALSE(load_model_config(unmapped, strict()).has_value());
}

TEST_F(model_config_loader_test, a_path_leading_out_is_refused_before_the_completer_runs) {
  // The python backend's completer imports the model file the configuration
  // names; an override must not get it to import any file on disk.
  static int completed = 0;
  backends::backend_entry entry;
  entry.name = "conch_repository_test_counting";
  entry.complete_config = [](inference::ModelConfig&, const fs::path&) {
    ++completed;
    return status::ok();
  };
  backends::registry::global().add(std::move(entry));
  tmp_.make_dir("repo/m/1");
  for (const char* name : {"/tmp/evil.py", "../../../../tmp/evil.py"}) {
    auto json = std::string{R"({"backend":"conch_repository_test_counting",)"}
                + R"("default_model_filename":")" + name + "\"}";
    auto config = load_model_config(location_, lenient(), json);
    ASSERT_FALSE(config.has_value()) << name;
    EXPECT_EQ(config.error().code(), errc::invalid_argument);
    EXPECT_NE(config.error().message().find("default_model_filename"), std::string::npos)
      << config.error().message();
  }
  EXPECT_EQ(completed, 0);
}
