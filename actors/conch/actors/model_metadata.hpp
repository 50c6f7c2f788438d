#pragma once

#include <string>
#include <vector>

#include "conch/runtime/tensor.hpp"
#include "model_config.pb.h"

namespace conch::actors {

/// The metadata of a tensor: name, protocol datatype and shape (with -1 for
/// the batch dimension of batching models).
struct tensor_metadata {
  std::string name;
  std::string datatype;
  runtime::shape_type shape;
};

/// Model metadata as the KServe protocol reports it.
struct model_metadata {
  std::string name;
  std::vector<std::string> versions;
  std::string platform;
  std::vector<tensor_metadata> inputs;
  std::vector<tensor_metadata> outputs;
};

/// Builds the metadata of a model from its configuration and READY versions.
model_metadata make_model_metadata(const inference::ModelConfig& config,
                                   const std::vector<int64_t>& versions);

} // namespace conch::actors
