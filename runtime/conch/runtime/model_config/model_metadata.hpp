#pragma once

#include <string>
#include <vector>

#include "conch/runtime/tensor.hpp"
#include "model_config.pb.h"

namespace conch::runtime {

/// The metadata of a tensor: name, protocol datatype and shape (with -1 for
/// the batch dimension of batching models).
struct tensor_metadata {
  std::string name;
  std::string datatype;
  shape_type shape;
};

/// Model metadata as the KServe protocol reports it: one type for the server
/// that builds it and the frontends that encode it.
struct model_metadata {
  std::string name;
  /// The requested version, or every READY version when none was requested.
  std::vector<std::string> versions;
  /// config.platform, or config.backend when the platform is empty.
  std::string platform;
  std::vector<tensor_metadata> inputs;
  std::vector<tensor_metadata> outputs;
};

/// Builds the metadata of a model from its configuration and READY versions.
model_metadata make_model_metadata(const inference::ModelConfig& config,
                                   const std::vector<int64_t>& versions);

} // namespace conch::runtime
