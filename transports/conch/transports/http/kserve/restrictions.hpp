#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/result.hpp"
#include "conch/transports/http/header_map.hpp"
#include "conch/transports/http/kserve/route.hpp"

namespace conch::transports::http::kserve {

/// One restricted endpoint group as the options name it: requests to the
/// listed features must carry header `key` with value `value`.
struct feature_group {
  /// The header's name (compared without regard to case).
  std::string key;
  /// The value the header must have (compared exactly).
  std::string value;
  /// "health", "metadata", "inference", "shared-memory", "model-config",
  /// "model-repository", "statistics", "trace" or "logging".
  std::vector<std::string> features;
};

/// The feature called `name` ("shared-memory", ...), or nullopt.
std::optional<feature> parse_feature(std::string_view name) noexcept;

/// The header each endpoint group requires, if any (spec §1.18): a request
/// to a restricted group without the header, or with another value, gets
/// 403. Read-only once made; thread-safe.
class restrictions {
 public:
  /// No group restricted.
  restrictions() = default;

  /// The restrictions `groups` describe. INVALID_ARG for an unknown feature
  /// name, a feature in two groups, or an empty header name.
  static runtime::result<restrictions> make(const std::vector<feature_group>& groups);

  /// The name of the header a request with `headers` lacks (or carries with
  /// another value) to reach feature `f`; nullopt when it may go on.
  std::optional<std::string_view> missing_header(feature f, const header_map& headers) const;

 private:
  struct requirement {
    std::string key;
    std::string value;
  };

  std::array<std::optional<requirement>, 9> required_;  // indexed by feature
};

} // namespace conch::transports::http::kserve
