#include "conch/runtime/model_config/load.hpp"

#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace conch::runtime::model_config {
namespace {

namespace fs = std::filesystem;

fs::path corpus_dir() {
  const char* root = std::getenv("CONCH_SOURCE_DIR");
  return fs::path(root ? root : CONCH_TEST_SOURCE_DIR) / "tests" / "data" / "configs";
}

// One malformed configuration of the corpus and what its error must say.
struct bad_config {
  std::string dir;
  errc code;
  std::vector<std::string> fragments;
};

std::ostream& operator<<(std::ostream& os, const bad_config& c) { return os << c.dir; }

class invalid_corpus : public testing::TestWithParam<bad_config> {};

TEST_P(invalid_corpus, is_rejected_with_file_and_field) {
  const auto& param = GetParam();
  const auto file = corpus_dir() / "invalid" / param.dir / "config.pbtxt";
  ASSERT_TRUE(fs::exists(file)) << file;
  normalize_options options;
  options.gpu_count = 0;
  auto loaded = load_file(file, param.dir, options);
  ASSERT_FALSE(loaded) << param.dir << " was accepted";
  const auto& message = loaded.error().message();
  EXPECT_EQ(loaded.error().code(), param.code) << message;
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  for (const auto& fragment : param.fragments)
    EXPECT_NE(message.find(fragment), std::string::npos)
        << "missing \"" << fragment << "\" in: " << message;
}

const errc bad = errc::invalid_argument;

INSTANTIATE_TEST_SUITE_P(
    corpus, invalid_corpus,
    testing::Values(
        bad_config{"syntax_error", bad, {"line 3 column", "Expected"}},
        bad_config{"unknown_field",
                   bad,
                   {"line 3 column 5",
                    "Message type \"inference.ModelInput\" has no field named \"nme\""}},
        bad_config{"unknown_data_type", bad, {"TYPE_FLOAT32", "data_type"}},
        bad_config{"unknown_kind", bad, {"KIND_TPU", "kind"}},
        bad_config{"enum_number_out_of_range", bad, {"input[0].data_type", "99"}},
        bad_config{"duplicate_scalar_field", bad, {"max_batch_size", "line 3"}},
        bad_config{"duplicate_input", bad, {"input[1].name", "'INPUT0'"}},
        bad_config{"duplicate_output", bad, {"output[1].name", "'OUT'"}},
        bad_config{"tensor_without_name", bad, {"input[0].name"}},
        bad_config{"missing_data_type", bad, {"input[0].data_type", "'INPUT0'"}},
        bad_config{"missing_dims", bad, {"input[0].dims", "'INPUT0'"}},
        bad_config{"zero_dim", bad, {"input[0].dims[1]", "got 0"}},
        bad_config{"dim_below_wildcard", bad, {"output[0].dims[0]", "got -2"}},
        bad_config{"reshape_count_mismatch", bad, {"input[0].reshape.shape", "[4]", "[2, 3]"}},
        bad_config{"preferred_exceeds_max",
                   bad,
                   {"dynamic_batching.preferred_batch_size[1]", "8", "max_batch_size 4"}},
        bad_config{"decoupled_preserve_ordering",
                   bad,
                   {"dynamic_batching.preserve_ordering", "decoupled"}},
        bad_config{"decoupled_response_cache", bad, {"response_cache.enable", "decoupled"}},
        bad_config{"bad_default_priority",
                   bad,
                   {"dynamic_batching.default_priority_level", "[1, 2]", "got 3"}},
        bad_config{"bad_priority_queue_key",
                   bad,
                   {"dynamic_batching.priority_queue_policy", "priority level 5"}},
        bad_config{"name_mismatch", bad, {"name:", "'other_model'", "'name_mismatch'"}},
        bad_config{"negative_max_batch_size", bad, {"max_batch_size", "got -1"}},
        bad_config{"empty_specific_versions", bad, {"version_policy.specific.versions"}},
        bad_config{"version_zero", bad, {"version_policy.specific.versions[1]", "got 0"}},
        bad_config{"kind_gpu_without_gpus",
                   bad,
                   {"instance_group[0]", "'kind_gpu_without_gpus_0'",
                    "KIND_GPU but no GPUs are available"}},
        bad_config{"cpu_group_with_gpus", bad, {"instance_group[0].gpus", "'cpus'", "KIND_CPU"}},
        bad_config{"no_backend", bad, {"backend", "'platform' or 'backend'"}},
        bad_config{"ensemble_with_instance_group", bad, {"instance_group", "ensemble"}}),
    [](const testing::TestParamInfo<bad_config>& info) { return info.param.dir; });

TEST(invalid_corpus_listing, every_folder_has_a_case) {
  // A malformed file added without a test case would check nothing.
  size_t folders = 0;
  for (const auto& entry : fs::directory_iterator(corpus_dir() / "invalid"))
    folders += entry.is_directory() ? 1 : 0;
  EXPECT_EQ(folders, 27u);
}

TEST(load_file, missing_file_is_not_found_and_named) {
  auto path = corpus_dir() / "invalid" / "no_such_model" / "config.pbtxt";
  auto loaded = load_file(path, "no_such_model");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code(), errc::not_found);
  EXPECT_NE(loaded.error().message().find(path.string()), std::string::npos);
}

TEST(load_file, valid_corpus_loads) {
  for (const char* name : {"m", "batched", "pipeline", "stateful"}) {
    auto loaded = load_file(corpus_dir() / "valid" / name / "config.pbtxt", name);
    ASSERT_TRUE(loaded) << name << ": " << loaded.error().to_string();
    EXPECT_EQ(loaded->name(), name);
  }
}

} // namespace
} // namespace conch::runtime::model_config
