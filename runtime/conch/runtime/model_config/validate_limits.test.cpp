#include "conch/runtime/model_config/validate_limits.hpp"

#include <string>

#include <gtest/gtest.h>

#include "conch/runtime/model_config/limits.hpp"
#include "conch/runtime/model_config/normalize.hpp"
#include "conch/runtime/model_config/parse.hpp"
#include "conch/runtime/model_config/validate.hpp"

namespace conch::runtime::model_config {
namespace {

const std::string file = "repo/m/config.pbtxt";

const std::string io = R"(
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
)";

// Parses, normalises (with `gpus` GPUs) and validates `text` as model "m".
status check(const std::string& text, int gpus = 0) {
  auto config = parse_text("backend: \"identity\"\n" + io + text, file);
  if (!config)
    return config.error();
  CONCH_RUNTIME_RETURN_IF_ERROR(normalize(*config, "m", normalize_options{gpus}));
  return validate(*config, file);
}

// Expects INVALID_ARG "<file>: <field>: ..." that names the bound.
void expect_over(const std::string& text, const std::string& field, int64_t limit, int gpus = 0) {
  auto st = check(text, gpus);
  EXPECT_EQ(st.code(), errc::invalid_argument) << text << "\n" << st.to_string();
  EXPECT_EQ(st.message().rfind(file + ": " + field + ": ", 0), 0u) << st.message();
  EXPECT_NE(st.message().find(std::to_string(limit)), std::string::npos) << st.message();
}

std::string n(int64_t v) { return std::to_string(v); }

TEST(validate_limits, instance_counts) {
  constexpr auto limit = limits::max_instances;
  EXPECT_TRUE(check("instance_group [ { kind: KIND_CPU count: " + n(limit) + " } ]"));
  expect_over("instance_group [ { kind: KIND_CPU count: 2000000000 } ]", "instance_group[0].count",
              limit);
  expect_over("instance_group [ { kind: KIND_CPU count: " + n(limit + 1) + " } ]",
              "instance_group[0].count", limit);
  // Over every group, and count times the GPUs of a group.
  expect_over("instance_group [ { kind: KIND_CPU count: 1000 }, { kind: KIND_CPU count: 25 } ]",
              "instance_group", limit);
  expect_over("instance_group [ { kind: KIND_GPU count: 600 gpus: [ 0, 1 ] } ]", "instance_group",
              limit, 2);
  std::string many_gpus = "instance_group [ { kind: KIND_GPU count: 1 gpus: [ 0";
  for (int i = 0; i < limit; ++i)
    many_gpus += ", 0";
  expect_over(many_gpus + " ] } ]", "instance_group", limit, 1);
}

TEST(validate_limits, sequence_batcher_slots) {
  constexpr auto limit = limits::max_sequence_slots;
  EXPECT_TRUE(check("max_batch_size: " + n(limit) + " sequence_batching { }"));
  // A large batch is fine without a sequence batcher.
  EXPECT_TRUE(check("max_batch_size: 2147483647 dynamic_batching { }"));
  expect_over("max_batch_size: 2147483647 sequence_batching { }", "max_batch_size", limit);
  expect_over("max_batch_size: " + n(limit / 2)
                + " sequence_batching { } instance_group [ { kind: KIND_CPU count: 3 } ]",
              "max_batch_size", limit);
  expect_over("max_batch_size: 8 sequence_batching { oldest { max_candidate_sequences: "
                "2147483647 } }",
              "sequence_batching.oldest.max_candidate_sequences", limit);
}

TEST(validate_limits, warmup_samples) {
  EXPECT_TRUE(check("max_batch_size: 8 model_warmup [ { name: \"w\" batch_size: 8 inputs { key: "
                    "\"IN\" value: { data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } } ]"));
  expect_over("max_batch_size: 2147483647 model_warmup [ { name: \"w\" batch_size: 2000000000 } ]",
              "model_warmup[0].batch_size", limits::max_warmup_batch_size);
  for (const std::string dims : {"1073741824", "65536, 65536", "4611686018427387904, 4"})
    expect_over("model_warmup [ { name: \"w\" batch_size: 1 inputs { key: \"IN\" value: { "
                "data_type: TYPE_FP32 dims: [ " + dims + " ] random_data: true } } } ]",
                "model_warmup[0].inputs[IN].dims", limits::max_config_tensor_bytes);
  expect_over("model_warmup [ { name: \"w\" batch_size: 1 count: 4294967295 } ]",
              "model_warmup[0].count", limits::max_warmup_count);
  // Samples each under their limits are held to the requests they make together.
  expect_over("max_batch_size: 65536 model_warmup [ { name: \"a\" batch_size: 65536 count: 65536 } ]",
              "model_warmup[0]", limits::max_warmup_requests);
  std::string runs;
  for (int i = 0; i < 20; ++i)
    runs += std::string(i ? ", " : "") + "{ name: \"r" + std::to_string(i)
            + "\" batch_size: 1 count: 65536 }";
  expect_over("model_warmup [ " + runs + "]", "model_warmup[16]", limits::max_warmup_requests);
  // Many samples, each under the limit, are held to it together.
  std::string samples;
  for (int i = 0; i < 5; ++i)
    samples += std::string(i ? ", " : "") + "{ name: \"w" + std::to_string(i) + "\" batch_size: 1 inputs { key: \"IN\" value: "
               "{ data_type: TYPE_FP32 dims: [ 67108864 ] zero_data: true } } } ";
  expect_over("model_warmup [ " + samples + "]", "model_warmup[4].inputs[IN].dims",
              limits::max_config_tensor_bytes);
}

TEST(validate_limits, sequence_states) {
  const std::string state = "sequence_batching { state [ { input_name: \"S_IN\" output_name: "
                            "\"S_OUT\" data_type: TYPE_INT64 ";
  EXPECT_TRUE(check(state + "dims: [ -1, 16 ] } ] }"));
  expect_over(state + "dims: [ 4294967296, 4294967296 ] } ] }", "sequence_batching.state[0].dims",
              limits::max_config_tensor_bytes);
  expect_over(state + "dims: [ -1, 16 ] initial_state [ { data_type: TYPE_INT64 name: \"i\" "
                      "dims: [ 9223372036854775807, 16 ] zero_data: true } ] } ] }",
              "sequence_batching.state[0].initial_state[0].dims",
              limits::max_config_tensor_bytes);
}

} // namespace
} // namespace conch::runtime::model_config
