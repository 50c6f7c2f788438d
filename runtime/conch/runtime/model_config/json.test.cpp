#include "conch/runtime/model_config/json.hpp"

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <filesystem>
#include <string>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/pointer.h>

#include "conch/runtime/model_config/load.hpp"
#include "conch/runtime/model_config/parse.hpp"

namespace conch::runtime::model_config {
namespace {

namespace fs = std::filesystem;
using google::protobuf::util::MessageDifferencer;

// Typed look-ups by JSON pointer that fail the test, instead of aborting
// inside RapidJSON, when a member is missing or has another type.
const rapidjson::Value* find(const rapidjson::Value& root, const char* pointer) {
  return rapidjson::Pointer(pointer).Get(root);
}

bool has(const rapidjson::Value& root, const char* pointer) {
  return find(root, pointer) != nullptr;
}

std::string str(const rapidjson::Value& root, const char* pointer) {
  auto* v = find(root, pointer);
  return v == nullptr ? "<missing>" : v->IsString() ? v->GetString() : "<not a string>";
}

std::optional<int64_t> i64(const rapidjson::Value& root, const char* pointer) {
  auto* v = find(root, pointer);
  return v != nullptr && v->IsInt64() ? std::optional<int64_t>{v->GetInt64()} : std::nullopt;
}

std::optional<uint64_t> u64(const rapidjson::Value& root, const char* pointer) {
  auto* v = find(root, pointer);
  return v != nullptr && v->IsUint64() ? std::optional<uint64_t>{v->GetUint64()} : std::nullopt;
}

std::optional<bool> flag(const rapidjson::Value& root, const char* pointer) {
  auto* v = find(root, pointer);
  return v != nullptr && v->IsBool() ? std::optional<bool>{v->GetBool()} : std::nullopt;
}

// Elements of an array or members of an object; SIZE_MAX when neither.
size_t count(const rapidjson::Value& root, const char* pointer) {
  auto* v = find(root, pointer);
  if (v != nullptr && v->IsArray())
    return v->Size();
  if (v != nullptr && v->IsObject())
    return v->MemberCount();
  return std::numeric_limits<size_t>::max();
}

fs::path valid_config(const std::string& name) {
  const char* root = std::getenv("CONCH_SOURCE_DIR");
  return fs::path(root ? root : CONCH_TEST_SOURCE_DIR) / "tests" / "data" / "configs" / "valid" /
         name / "config.pbtxt";
}

// Loads a config of the valid corpus, prints it and parses the JSON back.
rapidjson::Document printed(const std::string& name, int gpu_count = 0) {
  normalize_options options;
  options.gpu_count = gpu_count;
  auto config = load_file(valid_config(name), name, options);
  EXPECT_TRUE(config) << config.error().to_string();
  rapidjson::Document doc;
  if (config)
    doc.Parse(to_json(*config).c_str());
  EXPECT_FALSE(doc.HasParseError());
  EXPECT_TRUE(doc.IsObject());
  return doc;
}

TEST(to_json, prints_defaults_names_and_numbers) {
  auto doc = printed("m");
  EXPECT_EQ(str(doc, "/name"), "m");
  EXPECT_EQ(str(doc, "/platform"), "");
  EXPECT_EQ(str(doc, "/backend"), "identity");
  EXPECT_EQ(i64(doc, "/max_batch_size"), 0);
  EXPECT_EQ(str(doc, "/input/0/name"), "INPUT0");
  EXPECT_EQ(str(doc, "/input/0/data_type"), "TYPE_FP32");
  EXPECT_EQ(str(doc, "/input/0/format"), "FORMAT_NONE");
  EXPECT_EQ(flag(doc, "/input/0/optional"), false);
  EXPECT_EQ(flag(doc, "/input/0/is_shape_tensor"), false);
  EXPECT_EQ(count(doc, "/input/0/dims"), 2u);
  EXPECT_EQ(i64(doc, "/input/0/dims/0"), -1);
  EXPECT_EQ(i64(doc, "/input/0/dims/1"), 16);
  EXPECT_FALSE(has(doc, "/input/0/reshape"));
  EXPECT_EQ(i64(doc, "/output/0/dims/1"), 16);
  EXPECT_EQ(str(doc, "/output/0/label_filename"), "");
}

TEST(to_json, prints_the_normalised_groups_policies_and_flags) {
  auto doc = printed("m");
  EXPECT_EQ(str(doc, "/instance_group/0/name"), "m_0");
  EXPECT_EQ(str(doc, "/instance_group/0/kind"), "KIND_CPU");
  EXPECT_EQ(i64(doc, "/instance_group/0/count"), 1);
  EXPECT_EQ(count(doc, "/instance_group/0/gpus"), 0u);
  EXPECT_EQ(i64(doc, "/version_policy/latest/num_versions"), 1);
  EXPECT_EQ(flag(doc, "/model_transaction_policy/decoupled"), true);
  EXPECT_EQ(flag(doc, "/optimization/input_pinned_memory/enable"), true);
  EXPECT_EQ(flag(doc, "/optimization/output_pinned_memory/enable"), true);
  EXPECT_EQ(str(doc, "/optimization/priority"), "PRIORITY_DEFAULT");
  EXPECT_EQ(count(doc, "/parameters"), 0u);
  EXPECT_EQ(count(doc, "/batch_input"), 0u);
  EXPECT_FALSE(has(doc, "/dynamic_batching"));
  EXPECT_FALSE(has(doc, "/response_cache"));
}

TEST(to_json, turns_64_bit_fields_into_numbers_but_keeps_map_keys) {
  auto doc = printed("batched");
  EXPECT_EQ(i64(doc, "/max_batch_size"), 8);
  EXPECT_EQ(i64(doc, "/version_policy/specific/versions/1"), 3);
  EXPECT_EQ(i64(doc, "/input/0/reshape/shape/0"), 150528);
  EXPECT_EQ(str(doc, "/input/0/format"), "FORMAT_NHWC");
  EXPECT_EQ(u64(doc, "/dynamic_batching/max_queue_delay_microseconds"), 100u);
  EXPECT_EQ(u64(doc, "/dynamic_batching/priority_levels"), 2u);
  EXPECT_EQ(u64(doc, "/dynamic_batching/default_priority_level"), 1u);
  EXPECT_EQ(i64(doc, "/dynamic_batching/preferred_batch_size/0"), 8);
  EXPECT_FALSE(has(doc, "/dynamic_batching/default_queue_policy"));
  EXPECT_EQ(str(doc, "/dynamic_batching/priority_queue_policy/2/timeout_action"), "DELAY");
  EXPECT_EQ(u64(doc, "/dynamic_batching/priority_queue_policy/2/default_timeout_microseconds"),
            5000u);
  EXPECT_EQ(str(doc, "/parameters/threads/string_value"), "4");
  EXPECT_EQ(flag(doc, "/response_cache/enable"), true);
  // No group given: one named after the model, two CPU instances for onnxruntime.
  EXPECT_EQ(str(doc, "/instance_group/0/name"), "batched");
  EXPECT_EQ(str(doc, "/instance_group/0/kind"), "KIND_CPU");
  EXPECT_EQ(i64(doc, "/instance_group/0/count"), 2);
}

TEST(to_json, prints_ensemble_and_sequence_int64s_as_numbers) {
  auto ensemble = printed("pipeline");
  EXPECT_EQ(i64(ensemble, "/ensemble_scheduling/step/0/model_version"), -1);
  EXPECT_EQ(i64(ensemble, "/ensemble_scheduling/step/1/model_version"), 2);
  EXPECT_EQ(str(ensemble, "/ensemble_scheduling/step/1/input_map/IN"), "TENSOR");
  EXPECT_EQ(count(ensemble, "/instance_group"), 0u);
  EXPECT_FALSE(has(ensemble, "/optimization"));

  auto seq = printed("stateful", 1);
  EXPECT_EQ(u64(seq, "/sequence_batching/max_sequence_idle_microseconds"), 1000000u);
  EXPECT_EQ(u64(seq, "/sequence_batching/oldest/max_queue_delay_microseconds"), 250u);
  EXPECT_EQ(i64(seq, "/sequence_batching/oldest/preferred_batch_size/0"), 2);
  EXPECT_EQ(i64(seq, "/sequence_batching/state/0/dims/0"), -1);
  EXPECT_EQ(str(seq, "/sequence_batching/control_input/1/control/0/data_type"), "TYPE_UINT64");
  EXPECT_EQ(str(seq, "/instance_group/0/name"), "two");
  EXPECT_EQ(str(seq, "/instance_group/0/kind"), "KIND_GPU");
  EXPECT_EQ(i64(seq, "/instance_group/0/gpus/0"), 0);
  EXPECT_EQ(str(seq, "/instance_group/1/name"), "stateful_1");
  EXPECT_EQ(str(seq, "/instance_group/1/kind"), "KIND_MODEL");
}

TEST(to_json, is_compact) {
  auto config = parse_text("name: \"m\" backend: \"identity\"", "t");
  ASSERT_TRUE(config);
  auto json = to_json(*config);
  EXPECT_EQ(json.rfind("{\"name\":\"m\",\"platform\":\"\",", 0), 0u) << json;
  EXPECT_EQ(json.find('\n'), std::string::npos);
  EXPECT_EQ(json.find(": "), std::string::npos);
}

TEST(to_json, prints_uint64_values_beyond_int64) {
  inference::ModelConfig config;
  config.mutable_dynamic_batching()->set_max_queue_delay_microseconds(18446744073709551615ull);
  rapidjson::Document doc;
  doc.Parse(to_json(config).c_str());
  EXPECT_EQ(u64(doc, "/dynamic_batching/max_queue_delay_microseconds"),
            18446744073709551615ull);
}

TEST(from_json, round_trips_every_valid_corpus_config) {
  for (const char* name : {"m", "batched", "pipeline", "stateful"}) {
    auto config = load_file(valid_config(name), name, normalize_options{1});
    ASSERT_TRUE(config) << config.error().to_string();
    auto back = from_json(to_json(*config));
    ASSERT_TRUE(back) << back.error().to_string();
    EXPECT_TRUE(MessageDifferencer::Equals(*config, *back)) << name;
  }
}

TEST(from_json, accepts_camel_case_string_int64_and_lower_case_enums) {
  auto config = from_json(R"({"name":"m","maxBatchSize":4,
      "input":[{"name":"X","dataType":"type_fp32","dims":["-1", 3]}],
      "dynamic_batching":{"max_queue_delay_microseconds":"20"}})");
  ASSERT_TRUE(config) << config.error().to_string();
  EXPECT_EQ(config->max_batch_size(), 4);
  EXPECT_EQ(config->input(0).data_type(), inference::TYPE_FP32);
  EXPECT_EQ(config->input(0).dims(0), -1);
  EXPECT_EQ(config->input(0).dims(1), 3);
  EXPECT_EQ(config->dynamic_batching().max_queue_delay_microseconds(), 20u);
}

TEST(from_json, rejects_unknown_fields_with_protobuf_message) {
  auto config = from_json(R"({"name":"m","max_batch":4})");
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().code(), errc::invalid_argument);
  EXPECT_NE(config.error().message().find("max_batch"), std::string::npos)
      << config.error().message();
}

TEST(from_json, rejects_malformed_json_and_wrong_types) {
  for (const char* text : {"{\"name\":", "[]", "{\"max_batch_size\":\"many\"}",
                           "{\"input\":[{\"data_type\":\"TYPE_NOPE\"}]}"}) {
    auto config = from_json(text);
    ASSERT_FALSE(config) << text;
    EXPECT_EQ(config.error().code(), errc::invalid_argument) << text;
  }
}

// A client's load override reaches from_json; no nesting may crash it.
TEST(from_json, depth_bombs_are_invalid_argument) {
  auto bomb = [](const std::string& prefix, const std::string& unit) {
    std::string json = prefix;
    while (json.size() < (1u << 20))
      json += unit;
    return json;
  };
  for (const auto& json : {bomb("", "["), bomb("", "{\"a\":"), bomb("{\"name\":", "["),
                           bomb("{\"input\":", "[{\"dims\":"),
                           bomb("{\"parameters\":", "{\"k\":")}) {
    auto config = from_json(json);
    ASSERT_FALSE(config) << json.substr(0, 40);
    EXPECT_EQ(config.error().code(), errc::invalid_argument) << config.error().message();
  }
}

} // namespace
} // namespace conch::runtime::model_config
