#include "conch/runtime/model_config/parse.hpp"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace conch::runtime::model_config {
namespace {

namespace fs = std::filesystem;

// A folder under the system temp dir, removed with everything in it.
class scratch_dir {
 public:
  scratch_dir() {
    auto base = fs::temp_directory_path() / "conch_model_config_parse_test";
    path_ = base / std::to_string(reinterpret_cast<uintptr_t>(this));
    fs::create_directories(path_);
  }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(parse_text, reads_the_spec_skeleton) {
  auto config = parse_text(R"(
name: "m"  backend: "onnxruntime"  max_batch_size: 8
input [{ name: "INPUT0" data_type: TYPE_FP32 dims: [ -1, 16 ] }]
output [{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] label_filename: "labels.txt" }]
instance_group [{ count: 2 kind: KIND_GPU gpus: [0] }]
dynamic_batching { preferred_batch_size: [4, 8] max_queue_delay_microseconds: 100 }
model_transaction_policy { decoupled: false }
version_policy: { latest: { num_versions: 1 } }
response_cache { enable: true }
parameters { key: "p" value: { string_value: "1" } }
)",
                           "m/config.pbtxt");
  ASSERT_TRUE(config) << config.error().to_string();
  EXPECT_EQ(config->name(), "m");
  EXPECT_EQ(config->backend(), "onnxruntime");
  EXPECT_EQ(config->max_batch_size(), 8);
  ASSERT_EQ(config->input_size(), 1);
  EXPECT_EQ(config->input(0).data_type(), inference::TYPE_FP32);
  ASSERT_EQ(config->input(0).dims_size(), 2);
  EXPECT_EQ(config->input(0).dims(0), -1);
  EXPECT_EQ(config->output(0).label_filename(), "labels.txt");
  EXPECT_EQ(config->instance_group(0).kind(), inference::ModelInstanceGroup::KIND_GPU);
  EXPECT_EQ(config->instance_group(0).count(), 2);
  EXPECT_EQ(config->dynamic_batching().preferred_batch_size_size(), 2);
  EXPECT_EQ(config->dynamic_batching().max_queue_delay_microseconds(), 100u);
  EXPECT_TRUE(config->has_model_transaction_policy());
  EXPECT_TRUE(config->response_cache().enable());
  EXPECT_EQ(config->parameters().at("p").string_value(), "1");
}

TEST(parse_text, accepts_repeated_keys_list_maps_and_separators) {
  auto config = parse_text(R"(
name: "m";
input { name: "A" data_type: TYPE_INT64 dims: 1 dims: 2 },
input { name: "B" data_type: TYPE_BOOL dims: [ 3 ] }
parameters: [ { key: "x" value: { string_value: "y" } } ]
# a comment
)",
                           "f");
  ASSERT_TRUE(config) << config.error().to_string();
  ASSERT_EQ(config->input_size(), 2);
  EXPECT_EQ(config->input(0).dims_size(), 2);
  EXPECT_EQ(config->input(1).name(), "B");
  EXPECT_EQ(config->parameters().at("x").string_value(), "y");
}

TEST(parse_text, empty_text_is_an_empty_config) {
  auto config = parse_text("", "f");
  ASSERT_TRUE(config);
  EXPECT_EQ(config->ByteSizeLong(), 0u);
}

TEST(parse_text, unknown_field_names_file_position_and_field) {
  auto config = parse_text("name: \"m\"\ninput [\n  {\n    nme: \"x\"\n  }\n]\n",
                           "models/m/config.pbtxt");
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().code(), errc::invalid_argument);
  EXPECT_EQ(config.error().message(),
            "failed to parse models/m/config.pbtxt: line 4 column 5: Message type "
            "\"inference.ModelInput\" has no field named \"nme\".");
}

TEST(parse_text, column_counts_tabs_as_protobuf_does) {
  auto config = parse_text("input {\n\tnme: \"x\"\n}\n", "t");
  ASSERT_FALSE(config);
  EXPECT_NE(config.error().message().find("line 2 column 9: Message type"), std::string::npos)
      << config.error().message();
}

TEST(parse_text, unknown_enum_name_is_rejected) {
  auto config = parse_text("input [ { data_type: TYPE_FP33 } ]", "c.pbtxt");
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().code(), errc::invalid_argument);
  EXPECT_NE(config.error().message().find("c.pbtxt: line 1 column"), std::string::npos)
      << config.error().message();
  EXPECT_NE(config.error().message().find("TYPE_FP33"), std::string::npos);
}

TEST(parse_text, wrong_value_type_is_rejected) {
  auto config = parse_text("max_batch_size: \"eight\"", "c.pbtxt");
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().code(), errc::invalid_argument);
  EXPECT_NE(config.error().message().find("\"eight\""), std::string::npos)
      << config.error().message();
}

TEST(parse_text, out_of_range_integer_is_rejected) {
  auto config = parse_text("max_batch_size: 4294967296", "c.pbtxt");
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().code(), errc::invalid_argument);
}

TEST(parse_text, unterminated_message_is_a_syntax_error) {
  auto config = parse_text("name: \"m\"\ninput {\n", "c.pbtxt");
  ASSERT_FALSE(config);
  EXPECT_NE(config.error().message().find("failed to parse c.pbtxt: line"), std::string::npos)
      << config.error().message();
}

TEST(read_file, parses_a_file_from_disk) {
  scratch_dir dir;
  auto path = dir.path() / "config.pbtxt";
  std::ofstream(path) << "name: \"disk\"\nmax_batch_size: 3\n";
  auto config = read_file(path);
  ASSERT_TRUE(config) << config.error().to_string();
  EXPECT_EQ(config->name(), "disk");
  EXPECT_EQ(config->max_batch_size(), 3);
}

TEST(read_file, parse_errors_name_the_path) {
  scratch_dir dir;
  auto path = dir.path() / "config.pbtxt";
  std::ofstream(path) << "max_batch_size: 3\nbogus: 1\n";
  auto config = read_file(path);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().message().rfind("failed to parse " + path.string() + ": line 2", 0),
            0u)
      << config.error().message();
}

TEST(read_file, missing_file_is_not_found) {
  scratch_dir dir;
  auto path = dir.path() / "nope" / "config.pbtxt";
  auto config = read_file(path);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().code(), errc::not_found);
  EXPECT_NE(config.error().message().find(path.string()), std::string::npos);
}

TEST(read_file, directory_is_rejected) {
  scratch_dir dir;
  auto config = read_file(dir.path());
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().code(), errc::invalid_argument);
  EXPECT_NE(config.error().message().find(dir.path().string()), std::string::npos);
}

} // namespace
} // namespace conch::runtime::model_config
