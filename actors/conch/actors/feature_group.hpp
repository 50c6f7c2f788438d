#pragma once

#include <string>
#include <vector>

namespace conch::actors {

/// One group of restricted features of a KServe frontend: calls to the
/// listed features must carry header `key` with value `value` (over gRPC,
/// metadata `triton-grpc-protocol-<key>`).
struct feature_group {
  /// The header's name.
  std::string key;
  /// The value it must have.
  std::string value;
  /// "health", "metadata", "inference", "shared-memory", "model-config",
  /// "model-repository", "statistics", "trace" or "logging".
  std::vector<std::string> features;
};

} // namespace conch::actors
