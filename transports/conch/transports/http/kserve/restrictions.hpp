#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "conch/runtime/result.hpp"
#include "conch/transports/http/header_map.hpp"
#include "conch/transports/http/kserve/route.hpp"
#include "conch/transports/protocol/restrictions.hpp"

namespace conch::transports::http::kserve {

/// One restricted endpoint group as the options name it (the header's name
/// is compared without regard to case, its value exactly).
using protocol::feature_group;
using protocol::parse_feature;

/// The header each endpoint group requires, if any (spec §1.18): a request
/// to a restricted group without the header, or with another value, gets
/// 403. The groups themselves are protocol::restrictions, shared with the
/// gRPC frontend. Read-only once made; thread-safe.
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
  protocol::restrictions groups_;
};

} // namespace conch::transports::http::kserve
