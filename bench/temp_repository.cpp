#include "temp_repository.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

namespace conch::bench {

namespace {

constexpr const char* identity_config = R"(name: "identity_fp32"
backend: "identity"
max_batch_size: 64
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
)";

constexpr const char* batched_config = R"(name: "identity_fp32_batched"
backend: "identity"
max_batch_size: 64
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
dynamic_batching { }
)";

// Two identity steps in a row: what an ensemble's data flow costs over the
// one step it replaces.
constexpr const char* ensemble_config = R"(name: "ensemble_identity_2"
platform: "ensemble"
max_batch_size: 64
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
ensemble_scheduling { step [
  { model_name: "identity_fp32" input_map { key: "INPUT0" value: "INPUT0" }
    output_map { key: "OUTPUT0" value: "mid" } },
  { model_name: "identity_fp32" input_map { key: "INPUT0" value: "mid" }
    output_map { key: "OUTPUT0" value: "OUTPUT0" } } ] }
)";

// The identity behind the sequence batcher (oldest strategy), each request
// a sequence of one: what the batcher's slots and control inputs cost.
constexpr const char* sequence_config = R"(name: "sequence_identity"
backend: "identity"
max_batch_size: 64
input [ { name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
output [ { name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
sequence_batching {
  oldest { max_candidate_sequences: 64 }
  control_input [ { name: "START" control [ { kind: CONTROL_SEQUENCE_START
                                              int32_false_true: [ 0, 1 ] } ] } ]
}
)";

bool write_model(const std::filesystem::path& root, const std::string& name, const char* config) {
  std::error_code ec;
  std::filesystem::create_directories(root / name / "1", ec);
  if (ec)
    return false;
  std::ofstream out{root / name / "config.pbtxt"};
  out << config;
  return static_cast<bool>(out);
}

} // namespace

temp_repository::temp_repository() {
  auto base = std::filesystem::temp_directory_path() / "conch-bench-XXXXXX";
  std::string pattern = base.string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr)
    return;
  std::filesystem::path root{buf.data()};
  if (write_model(root, "identity_fp32", identity_config)
      && write_model(root, "identity_fp32_batched", batched_config)
      && write_model(root, "ensemble_identity_2", ensemble_config)
      && write_model(root, "sequence_identity", sequence_config))
    path_ = root.string();
  else
    std::filesystem::remove_all(root);
}

temp_repository::~temp_repository() {
  if (!path_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
}

} // namespace conch::bench
