#include "conch/runtime/model_config/validate.hpp"

#include <string>

#include <gtest/gtest.h>

#include "conch/runtime/model_config/normalize.hpp"
#include "conch/runtime/model_config/parse.hpp"

namespace conch::runtime::model_config {
namespace {

const std::string file = "repo/m/config.pbtxt";

// Parses, normalises (one GPU unless told) and validates `text` as model "m".
status check(const std::string& text, int gpu_count = 1) {
  auto config = parse_text("backend: \"identity\"\n" + text, file);
  if (!config)
    return config.error();
  CONCH_RUNTIME_RETURN_IF_ERROR(normalize(*config, "m", normalize_options{gpu_count}));
  return validate(*config, file);
}

// Expects INVALID_ARG with "<file>: <field>: ..." and `detail` in the message.
void expect_rejected(const std::string& text, const std::string& field,
                     const std::string& detail = "") {
  auto st = check(text);
  EXPECT_EQ(st.code(), errc::invalid_argument) << text << "\n" << st.to_string();
  EXPECT_EQ(st.message().rfind(file + ": " + field + ": ", 0), 0u) << st.message();
  EXPECT_NE(st.message().find(detail), std::string::npos) << st.message();
}

const std::string io = R"(
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
)";

TEST(validate, accepts_a_plain_model) {
  EXPECT_TRUE(check(io)) << check(io).to_string();
  EXPECT_TRUE(check(io, 0));
  EXPECT_TRUE(check("max_batch_size: 8 dynamic_batching { max_queue_delay_microseconds: 5 }"));
}

TEST(validate, enum_numbers_out_of_range_anywhere) {
  expect_rejected("input [ { name: \"IN\" data_type: 15 dims: [ 1 ] } ]", "input[0].data_type",
                  "unknown value 15 for enum inference.DataType");
  expect_rejected("input [ { name: \"IN\" data_type: TYPE_FP32 format: 7 dims: [ 1 ] } ]",
                  "input[0].format", "7");
  expect_rejected(
      "max_batch_size: 4 dynamic_batching { priority_levels: 2 default_priority_level: 1 "
      "priority_queue_policy { key: 2 value { timeout_action: 9 } } }",
      "dynamic_batching.priority_queue_policy[2].timeout_action", "9");
  expect_rejected("optimization { priority: 5 }", "optimization.priority", "5");
}

TEST(validate, identity_fields) {
  auto config = parse_text("max_batch_size: 1", file);
  ASSERT_TRUE(config);
  ASSERT_TRUE(normalize(*config, "m"));
  config->clear_name();
  auto st = validate(*config, file);
  EXPECT_EQ(st.message().rfind(file + ": name: ", 0), 0u) << st.message();
  expect_rejected("max_batch_size: -3", "max_batch_size", "got -3");
  expect_rejected("platform: \"ensemble\" ensemble_scheduling { step [ { model_name: \"a\" "
                  "input_map { key: \"a\" value: \"b\" } output_map { key: \"c\" value: \"d\" } } ] }",
                  "backend", "'identity'");
}

TEST(validate, version_policies) {
  expect_rejected("version_policy { latest { num_versions: 0 } }",
                  "version_policy.latest.num_versions", "got 0");
  expect_rejected("version_policy { specific {} }", "version_policy.specific.versions");
  expect_rejected("version_policy { specific { versions: [ 2, -1 ] } }",
                  "version_policy.specific.versions[1]", "got -1");
  EXPECT_TRUE(check("version_policy { specific { versions: [ 2, 7 ] } }"));
  EXPECT_TRUE(check("version_policy { all {} }"));
}

TEST(validate, tensor_shapes) {
  expect_rejected("input [ { name: \"IN\" data_type: TYPE_FP32 dims: [ 2, -7 ] } ]",
                  "input[0].dims[1]", "got -7");
  expect_rejected("output [ { name: \"O\" data_type: TYPE_FP32 } ]", "output[0].dims", "'O'");
  expect_rejected("output [ { name: \"O\" dims: [ 1 ] } ]", "output[0].data_type", "'O'");
  expect_rejected("output [ { data_type: TYPE_FP32 dims: [ 1 ] } ]", "output[0].name");
  expect_rejected(
      "input [ { name: \"IN\" data_type: TYPE_FP32 format: FORMAT_NCHW dims: [ 3, 224 ] } ]",
      "input[0].dims", "FORMAT_NCHW");
  expect_rejected("input [ { name: \"IN\" data_type: TYPE_INT32 dims: [ 1 ] is_shape_tensor: true "
                  "} ]",
                  "input[0].is_shape_tensor", "tensorrt_plan");
}

TEST(validate, reshapes_follow_triton_element_rules) {
  auto tensor = [](const std::string& dims, const std::string& shape) {
    return "max_batch_size: 2 input [ { name: \"IN\" data_type: TYPE_FP32 dims: " + dims +
           " reshape: { shape: " + shape + " } } ]";
  };
  EXPECT_TRUE(check(tensor("[ 2, 3 ]", "[ 3, 2 ]")));
  EXPECT_TRUE(check(tensor("[ 2, 4, -1, 6 ]", "[ 8, -1, 1, 6 ]")));
  EXPECT_TRUE(check(tensor("[ 1 ]", "[ ]")));
  expect_rejected(tensor("[ 2, 4, -1, 6 ]", "[ 4, -1, 12 ]"), "input[0].reshape.shape",
                  "[4, -1, 12]");
  expect_rejected(tensor("[ -1, 2 ]", "[ 2 ]"), "input[0].reshape.shape",
                  "number of variable-size dimensions");
  expect_rejected(tensor("[ -1 ]", "[ ]"), "input[0].reshape.shape", "[-1]");
  expect_rejected(tensor("[ 2 ]", "[ 0 ]"), "input[0].reshape.shape[0]", "got 0");
  expect_rejected(
      "max_batch_size: 0 input [ { name: \"IN\" data_type: TYPE_FP32 dims: [ 1 ] reshape: { "
      "shape: [ ] } } ]",
      "input[0].reshape.shape", "max_batch_size is 0");
}

TEST(validate, batch_inputs_and_outputs) {
  const std::string base = io + "max_batch_size: 4\n";
  EXPECT_TRUE(check(base + "batch_input [ { kind: BATCH_ELEMENT_COUNT target_name: \"N\" "
                           "data_type: TYPE_INT32 source_input: \"IN\" } ]"));
  expect_rejected(base + "batch_input [ { target_name: \"N\" data_type: TYPE_INT32 "
                         "source_input: \"NOPE\" } ]",
                  "batch_input[0].source_input[0]", "'NOPE'");
  expect_rejected(base + "batch_input [ { target_name: \"N\" data_type: TYPE_FP16 "
                         "source_input: \"IN\" } ]",
                  "batch_input[0].data_type");
  expect_rejected(base + "batch_output [ { target_name: \"GONE\" source_input: \"IN\" } ]",
                  "batch_output[0].target_name[0]", "'GONE'");
}

TEST(validate, dynamic_batching_rules) {
  expect_rejected("max_batch_size: 4 dynamic_batching { preferred_batch_size: [ 0 ] }",
                  "dynamic_batching.preferred_batch_size[0]", "got 0");
  // Triton accepts dynamic batching on a model without a batch dimension.
  EXPECT_TRUE(check("max_batch_size: 0 dynamic_batching {}"));
  expect_rejected("max_batch_size: 4 dynamic_batching { priority_levels: 2 }",
                  "dynamic_batching.default_priority_level", "got 0");
  // With priorities off Triton ignores the level fields; so do we.
  EXPECT_TRUE(check("max_batch_size: 4 dynamic_batching { default_priority_level: 9 "
                    "priority_queue_policy { key: 7 value {} } }"));
  expect_rejected("max_batch_size: 4 dynamic_batching { preserve_ordering: true "
                  "priority_levels: 2 default_priority_level: 1 }",
                  "dynamic_batching.preserve_ordering", "priority_levels is 2");
  expect_rejected("max_batch_size: 4 dynamic_batching { preserve_ordering: true "
                  "default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 9 "
                  "} }",
                  "dynamic_batching.default_queue_policy.timeout_action", "DELAY");
  EXPECT_TRUE(check("max_batch_size: 4 dynamic_batching { preserve_ordering: true }"));
  EXPECT_TRUE(check("max_batch_size: 4 model_transaction_policy { decoupled: true } "
                    "dynamic_batching { }"));
}

TEST(validate, sequence_batching_rules) {
  const auto seq = [](const std::string& body) {
    return "max_batch_size: 4 sequence_batching { " + body + " }";
  };
  EXPECT_TRUE(check(seq("control_input [ { name: \"S\" control [ { kind: CONTROL_SEQUENCE_START "
                        "fp32_false_true: [ 0, 1 ] } ] } ]")));
  expect_rejected(seq("control_input [ { name: \"S\" control [ { kind: CONTROL_SEQUENCE_START "
                      "int32_false_true: [ 0, 1, 2 ] } ] } ]"),
                  "sequence_batching.control_input[0].control[0]", "got 3");
  expect_rejected(seq("control_input [ { name: \"S\" control [ { kind: CONTROL_SEQUENCE_END } ] } ]"),
                  "sequence_batching.control_input[0].control[0]", "CONTROL_SEQUENCE_END");
  expect_rejected(seq("control_input [ { name: \"C\" control [ { kind: CONTROL_SEQUENCE_CORRID "
                      "data_type: TYPE_FP32 } ] } ]"),
                  "sequence_batching.control_input[0].control[0].data_type", "TYPE_FP32");
  expect_rejected(seq("control_input [ { name: \"A\" control [ { kind: CONTROL_SEQUENCE_READY "
                      "bool_false_true: [ false, true ] } ] }, { name: \"A\" } ]"),
                  "sequence_batching.control_input[1].name", "'A'");
  expect_rejected(seq("direct { minimum_slot_utilization: 1.5 }"),
                  "sequence_batching.direct.minimum_slot_utilization");
  expect_rejected(seq("oldest { preferred_batch_size: [ 5 ] }"),
                  "sequence_batching.oldest.preferred_batch_size[0]", "5");
  expect_rejected(seq("") + " response_cache { enable: true }", "response_cache.enable",
                  "sequence batching");
}

TEST(validate, ensemble_rules) {
  const std::string step =
      "step [ { model_name: \"a\" input_map { key: \"x\" value: \"IN\" } output_map { key: \"y\" "
      "value: \"OUT\" } } ]";
  auto ensemble = [](const std::string& text) {
    auto config = parse_text("platform: \"ensemble\"\n" + text, file);
    if (!config)
      return config.error();
    CONCH_RUNTIME_RETURN_IF_ERROR(normalize(*config, "m"));
    return validate(*config, file);
  };
  EXPECT_TRUE(ensemble("ensemble_scheduling { " + step + " }"));
  EXPECT_EQ(ensemble("").message(),
            file + ": ensemble_scheduling: must be specified when platform is \"ensemble\"");
  EXPECT_NE(ensemble("ensemble_scheduling { }").message().find("ensemble_scheduling.step"),
            std::string::npos);
  EXPECT_NE(ensemble("ensemble_scheduling { step [ { model_name: \"a\" } ] }")
                .message()
                .find("ensemble_scheduling.step[0].input_map"),
            std::string::npos);
  EXPECT_NE(ensemble("optimization {} ensemble_scheduling { " + step + " }")
                .message()
                .find(": optimization: "),
            std::string::npos);
  expect_rejected("ensemble_scheduling { " + step + " }", "ensemble_scheduling",
                  "platform is \"ensemble\"");
}

TEST(validate, instance_groups) {
  expect_rejected("instance_group [ { kind: KIND_MODEL gpus: [ 0 ] } ]",
                  "instance_group[0].gpus", "KIND_MODEL");
  expect_rejected("instance_group [ { kind: KIND_CPU profile: \"0\" } ]",
                  "instance_group[0].profile", "tensorrt_plan");
  auto config = parse_text("name: \"m\" backend: \"identity\" instance_group [ { name: \"g\" } ]", file);
  ASSERT_TRUE(config);
  auto st = validate(*config, file);
  EXPECT_EQ(st.code(), errc::internal) << st.to_string();
  EXPECT_NE(st.message().find("instance_group[0].kind"), std::string::npos);
}

TEST(validate, warmup_and_metrics) {
  expect_rejected("max_batch_size: 2 model_warmup [ { name: \"w\" batch_size: 3 } ]",
                  "model_warmup[0].batch_size", "[1, 2]");
  expect_rejected("model_warmup [ { name: \"w\" } ]", "model_warmup[0].batch_size", "got 0");
  expect_rejected("model_metrics { metric_control [ { metric_identifier { family: \"f\" } } ] }",
                  "model_metrics.metric_control[0].histogram_options.buckets");
  EXPECT_TRUE(check("model_metrics { metric_control [ { metric_identifier { family: \"f\" } "
                    "histogram_options { buckets: [ 1, 2 ] } } ] }"));
  EXPECT_TRUE(check("model_metrics { metric_control [ { metric_identifier { family: \"f\" } "
                    "histogram_options { buckets: [ -1, 0, 2.5 ] } } ] }"));
  expect_rejected("model_metrics { metric_control [ { metric_identifier { family: \"f\" } "
                  "histogram_options { buckets: [ 2, 1 ] } } ] }",
                  "model_metrics.metric_control[0].histogram_options.buckets", "increasing");
  expect_rejected("model_metrics { metric_control [ { metric_identifier { family: \"f\" } "
                  "histogram_options { buckets: [ 1, 1 ] } } ] }",
                  "model_metrics.metric_control[0].histogram_options.buckets", "increasing");
  expect_rejected("model_metrics { metric_control [ { metric_identifier { family: \"f\" } "
                  "histogram_options { buckets: [ inf ] } } ] }",
                  "model_metrics.metric_control[0].histogram_options.buckets", "finite");
}

} // namespace
} // namespace conch::runtime::model_config
