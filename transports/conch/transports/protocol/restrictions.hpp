#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/result.hpp"

namespace conch::transports::protocol {

/// The groups of KServe endpoints (HTTP) and RPCs (gRPC) that the
/// restricted-feature options can put behind a required header (spec §1.18,
/// §2.6); each endpoint and RPC belongs to exactly one.
enum class feature : uint8_t {
  health,
  metadata,
  inference,
  shared_memory,
  model_config,
  model_repository,
  statistics,
  trace,
  logging,
};

/// The feature called `name` ("shared-memory", ...), or nullopt.
std::optional<feature> parse_feature(std::string_view name) noexcept;

/// One restricted group as the options name it: calls to the listed
/// features must carry header `key` with value `value`.
struct feature_group {
  /// The header's name.
  std::string key;
  /// The value the header must have (compared exactly).
  std::string value;
  /// "health", "metadata", "inference", "shared-memory", "model-config",
  /// "model-repository", "statistics", "trace" or "logging".
  std::vector<std::string> features;
};

/// The header each feature requires, if any; how a transport finds a
/// header is its own business. Read-only once made; thread-safe.
class restrictions {
 public:
  /// What a call to a restricted feature must carry.
  struct requirement {
    /// The header's name, as the options gave it.
    std::string key;
    /// Its required value.
    std::string value;
  };

  /// No feature restricted.
  restrictions() = default;

  /// The restrictions `groups` describe. INVALID_ARG for an unknown feature
  /// name, a feature in two groups, or an empty header name.
  static runtime::result<restrictions> make(const std::vector<feature_group>& groups);

  /// What calls to `f` must carry; nullptr when `f` is not restricted.
  const requirement* required(feature f) const noexcept;

 private:
  std::array<std::optional<requirement>, 9> required_;  // indexed by feature
};

} // namespace conch::transports::protocol
