#include "conch/runtime/model_config/normalize.hpp"

#include <string>

#include <gtest/gtest.h>

#include "conch/runtime/model_config/parse.hpp"

namespace conch::runtime::model_config {
namespace {

using group_t = inference::ModelInstanceGroup;

inference::ModelConfig parsed(const std::string& text) {
  auto config = parse_text(text, "test");
  EXPECT_TRUE(config) << config.error().to_string();
  return config ? *config : inference::ModelConfig{};
}

inference::ModelConfig normalized(const std::string& text, int gpu_count = 0) {
  auto config = parsed(text);
  auto st = normalize(config, "m", normalize_options{gpu_count});
  EXPECT_TRUE(st) << st.to_string();
  return config;
}

TEST(normalize, empty_name_takes_the_directory_name) {
  auto config = normalized("backend: \"identity\"");
  EXPECT_EQ(config.name(), "m");
}

TEST(normalize, name_differing_from_directory_is_rejected) {
  auto config = parsed("name: \"other\" backend: \"identity\"");
  auto st = normalize(config, "m");
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("'other'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("'m'"), std::string::npos) << st.message();
}

TEST(normalize, version_policy_defaults_to_latest_one) {
  auto config = normalized("");
  ASSERT_TRUE(config.version_policy().has_latest());
  EXPECT_EQ(config.version_policy().latest().num_versions(), 1u);
  auto all = normalized("version_policy { all {} }");
  EXPECT_TRUE(all.version_policy().has_all());
}

TEST(normalize, no_group_gives_one_named_after_the_model) {
  auto cpu = normalized("backend: \"identity\"");
  ASSERT_EQ(cpu.instance_group_size(), 1);
  EXPECT_EQ(cpu.instance_group(0).name(), "m");
  EXPECT_EQ(cpu.instance_group(0).kind(), group_t::KIND_CPU);
  EXPECT_EQ(cpu.instance_group(0).count(), 1);
  EXPECT_EQ(cpu.instance_group(0).gpus_size(), 0);

  auto gpu = normalized("backend: \"identity\"", 2);
  EXPECT_EQ(gpu.instance_group(0).kind(), group_t::KIND_GPU);
  ASSERT_EQ(gpu.instance_group(0).gpus_size(), 2);
  EXPECT_EQ(gpu.instance_group(0).gpus(1), 1);
}

TEST(normalize, unnamed_groups_get_model_and_index) {
  auto config = normalized(
      "instance_group [ { kind: KIND_CPU }, { name: \"named\" kind: KIND_CPU }, { kind: "
      "KIND_MODEL count: 3 } ]");
  EXPECT_EQ(config.instance_group(0).name(), "m_0");
  EXPECT_EQ(config.instance_group(1).name(), "named");
  EXPECT_EQ(config.instance_group(2).name(), "m_2");
  EXPECT_EQ(config.instance_group(2).count(), 3);
}

TEST(normalize, count_below_one_becomes_the_default) {
  auto config = normalized("instance_group [ { kind: KIND_CPU count: -4 } ]");
  EXPECT_EQ(config.instance_group(0).count(), 1);
  auto onnx = normalized("backend: \"onnxruntime\" instance_group [ { kind: KIND_CPU } ]");
  EXPECT_EQ(onnx.instance_group(0).count(), 2);
  auto onnx_gpu = normalized("backend: \"onnxruntime\" instance_group [ { kind: KIND_GPU } ]", 1);
  EXPECT_EQ(onnx_gpu.instance_group(0).count(), 1);
}

TEST(normalize, kind_auto_resolves_by_gpu_availability) {
  EXPECT_EQ(normalized("instance_group [ {} ]", 0).instance_group(0).kind(), group_t::KIND_CPU);
  EXPECT_EQ(normalized("instance_group [ {} ]", 1).instance_group(0).kind(), group_t::KIND_GPU);
  // A listed GPU that does not exist sends the group to the CPU, as in Triton.
  auto missing = normalized("instance_group [ { gpus: [ 3 ] } ]", 2);
  EXPECT_EQ(missing.instance_group(0).kind(), group_t::KIND_CPU);
}

TEST(normalize, kind_gpu_without_gpus_fails) {
  auto config = parsed("instance_group [ { kind: KIND_GPU } ]");
  auto st = normalize(config, "m", normalize_options{0});
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("instance group 'm_0' of model 'm' specifies KIND_GPU but no "
                              "GPUs are available"),
            std::string::npos)
      << st.message();
}

TEST(normalize, kind_gpu_with_unknown_gpu_fails) {
  auto config = parsed("instance_group [ { kind: KIND_GPU gpus: [ 0, 5 ] } ]");
  auto st = normalize(config, "m", normalize_options{2});
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("GPU 5"), std::string::npos) << st.message();
}

TEST(normalize, kind_gpu_keeps_listed_gpus) {
  auto config = normalized("instance_group [ { kind: KIND_GPU gpus: [ 1 ] count: 2 } ]", 2);
  ASSERT_EQ(config.instance_group(0).gpus_size(), 1);
  EXPECT_EQ(config.instance_group(0).gpus(0), 1);
  EXPECT_EQ(config.instance_group(0).count(), 2);
}

TEST(normalize, ensembles_get_no_groups_and_no_optimization) {
  auto config = normalized(
      "platform: \"ensemble\" ensemble_scheduling { step [ { model_name: \"a\" } ] }");
  EXPECT_EQ(config.instance_group_size(), 0);
  EXPECT_FALSE(config.has_optimization());
}

TEST(normalize, dynamic_batching_prefers_max_batch_size) {
  auto config = normalized("max_batch_size: 16 dynamic_batching {}");
  ASSERT_EQ(config.dynamic_batching().preferred_batch_size_size(), 1);
  EXPECT_EQ(config.dynamic_batching().preferred_batch_size(0), 16);
  auto given = normalized("max_batch_size: 16 dynamic_batching { preferred_batch_size: [4] }");
  ASSERT_EQ(given.dynamic_batching().preferred_batch_size_size(), 1);
  EXPECT_EQ(given.dynamic_batching().preferred_batch_size(0), 4);
  auto unbatched = normalized("max_batch_size: 0 dynamic_batching {}");
  EXPECT_TRUE(unbatched.has_dynamic_batching());
  EXPECT_EQ(unbatched.dynamic_batching().preferred_batch_size_size(), 0);
}

TEST(normalize, priorities_are_left_as_written) {
  // Triton fills no default priority level; validation rejects a missing one.
  auto config = normalized("max_batch_size: 4 dynamic_batching { priority_levels: 3 }");
  EXPECT_EQ(config.dynamic_batching().default_priority_level(), 0u);
}

TEST(normalize, sequence_batching_defaults) {
  auto config = normalized("max_batch_size: 4 sequence_batching { oldest {} }");
  EXPECT_EQ(config.sequence_batching().max_sequence_idle_microseconds(), 1000000u);
  ASSERT_EQ(config.sequence_batching().oldest().preferred_batch_size_size(), 1);
  EXPECT_EQ(config.sequence_batching().oldest().preferred_batch_size(0), 4);
  auto idle = normalized("sequence_batching { max_sequence_idle_microseconds: 7 }");
  EXPECT_EQ(idle.sequence_batching().max_sequence_idle_microseconds(), 7u);
}

TEST(normalize, pinned_memory_defaults_to_enabled_but_keeps_explicit_values) {
  auto config = normalized("");
  EXPECT_TRUE(config.optimization().input_pinned_memory().enable());
  EXPECT_TRUE(config.optimization().output_pinned_memory().enable());
  auto off = normalized("optimization { input_pinned_memory { enable: false } }");
  EXPECT_FALSE(off.optimization().input_pinned_memory().enable());
  EXPECT_TRUE(off.optimization().output_pinned_memory().enable());
}

TEST(normalize, is_idempotent) {
  auto once = normalized("max_batch_size: 2 dynamic_batching {} instance_group [ {} ]", 1);
  auto twice = once;
  ASSERT_TRUE(normalize(twice, "m", normalize_options{1}));
  EXPECT_EQ(once.SerializeAsString(), twice.SerializeAsString());
}

} // namespace
} // namespace conch::runtime::model_config
