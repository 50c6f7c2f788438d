#include "conch/runtime/model_config/validate_paths.hpp"

#include <string>

#include <gtest/gtest.h>

#include "conch/runtime/model_config/normalize.hpp"
#include "conch/runtime/model_config/parse.hpp"
#include "conch/runtime/model_config/validate.hpp"

namespace conch::runtime::model_config {
namespace {

const std::string file = "repo/m/config.pbtxt";

status check(const std::string& text) {
  auto config = parse_text(text, file);
  if (!config)
    return config.error();
  return validate_paths(*config, file);
}

void expect_rejected(const std::string& text, const std::string& field,
                     const std::string& detail) {
  auto st = check(text);
  EXPECT_EQ(st.code(), errc::invalid_argument) << text;
  EXPECT_EQ(st.message().rfind(file + ": " + field + ": ", 0), 0u) << st.message();
  EXPECT_NE(st.message().find(detail), std::string::npos) << st.message();
}

TEST(validate_paths, file_names_inside_their_folder_pass) {
  EXPECT_TRUE(check("default_model_filename: \"model.py\""));
  EXPECT_TRUE(check("default_model_filename: \"sub/model.onnx\""));
  EXPECT_TRUE(check("cc_model_filenames { key: \"7.5\" value: \"model_75.plan\" }"));
  EXPECT_TRUE(check("output [ { name: \"O\" data_type: TYPE_FP32 dims: [ 1 ] "
                    "label_filename: \"labels.txt\" } ]"));
  EXPECT_TRUE(check(""));
}

TEST(validate_paths, absolute_and_parent_names_are_refused) {
  expect_rejected("default_model_filename: \"/tmp/evil.py\"", "default_model_filename",
                  "must be a relative path, got '/tmp/evil.py' (it names a file in the version "
                  "directory)");
  expect_rejected("default_model_filename: \"../../../../tmp/evil.py\"", "default_model_filename",
                  "'..'");
  expect_rejected("default_model_filename: \"sub/../../x.py\"", "default_model_filename", "'..'");
  expect_rejected("cc_model_filenames { key: \"8.0\" value: \"/x.plan\" }",
                  "cc_model_filenames[8.0]", "relative");
  expect_rejected("output [ { name: \"O\" data_type: TYPE_FP32 dims: [ 1 ] } ,"
                  "{ name: \"P\" data_type: TYPE_FP32 dims: [ 1 ] "
                  "label_filename: \"/etc/passwd\" } ]",
                  "output[1].label_filename", "model directory");
  expect_rejected("model_warmup [ { name: \"w\" batch_size: 1 inputs { key: \"IN\" value { "
                  "data_type: TYPE_FP32 dims: [ 1 ] input_data_file: \"../../secret\" } } } ]",
                  "model_warmup[0].inputs[IN].input_data_file", "warmup");
  expect_rejected("sequence_batching { state [ { input_name: \"I\" output_name: \"O\" "
                  "data_type: TYPE_FP32 dims: [ 1 ] initial_state [ { name: \"s\" "
                  "data_type: TYPE_FP32 dims: [ 1 ] data_file: \"/etc/shadow\" } ] } ] }",
                  "sequence_batching.state[0].initial_state[0].data_file", "initial_state");
}

TEST(validate_paths, validate_runs_the_path_checks) {
  auto config = parse_text("backend: \"python\"\ndefault_model_filename: \"/tmp/evil.py\"", file);
  ASSERT_TRUE(config);
  ASSERT_TRUE(normalize(*config, "m"));
  auto st = validate(*config, file);
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("default_model_filename"), std::string::npos) << st.message();
}

} // namespace
} // namespace conch::runtime::model_config
