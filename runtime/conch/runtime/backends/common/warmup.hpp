#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "conch/runtime/backends/backend.hpp"

namespace conch::runtime::backends::common {

/// One `model_warmup` sample, ready to run: its requests (batch_size of
/// them, each of batch 1), run together `count` times.
struct warmup_sample {
  std::string name;
  uint32_t count = 1;
  std::vector<inference_request> requests;
};

/// The samples of `config`'s model_warmup, with their input data made as
/// Triton makes it: zero_data zeroes (empty strings for BYTES), random_data
/// random bytes (empty strings for BYTES), input_data_file the raw bytes of
/// `<model_path>/warmup/<file>`. A leading dimension of 1 is added where the
/// model batches; a sample with batch_size 0 is skipped. Errors are
/// Triton's: variable dimensions, no data source, a file missing or too
/// short.
result<std::vector<warmup_sample>> make_warmup_samples(const inference::ModelConfig& config,
                                                       const std::filesystem::path& model_path);

/// `model` with every instance it creates warmed up before it is handed
/// out: each sample's requests run as one batch, `count` times, on the new
/// instance, and an error response fails the instance with Triton's
/// "failed to run warmup sample '<name>': <error>; ". Outputs are not
/// checked and the runs count in no statistics. Waits for the final
/// responses (a decoupled model may send them after execute returns).
std::shared_ptr<backend_model> with_warmup(std::shared_ptr<backend_model> model,
                                           std::vector<warmup_sample> samples);

} // namespace conch::runtime::backends::common
