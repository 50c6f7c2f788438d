#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include <grpcpp/server_context.h>

#include "conch/runtime/result.hpp"
#include "conch/transports/protocol/admission.hpp"
#include "conch/transports/protocol/restrictions.hpp"

namespace conch::transports::grpc {

/// What limits the calls of one gRPC server: restricted protocol groups and
/// the number of requests in flight. Read-only once made; thread-safe.
class call_limits {
 public:
  /// The prefix of the metadata key a restricted group requires: a group
  /// with header `k` needs metadata `triton-grpc-protocol-<k>` (lower case,
  /// as gRPC sends keys).
  static constexpr std::string_view header_prefix = "triton-grpc-protocol-";

  /// No group restricted, no limit on requests in flight.
  call_limits() = default;

  /// The limits of `groups` and `max_inflight` (0: no limit). INVALID_ARG for
  /// a malformed group (protocol::restrictions::make) or a negative limit.
  static runtime::result<call_limits> make(const std::vector<protocol::feature_group>& groups,
                                           int64_t max_inflight);

  /// Ok when the call of `ctx` may reach feature `f`: its group is not
  /// restricted, or the client metadata carries the group's key and value.
  /// Else UNAVAILABLE "This protocol is restricted, expecting header
  /// '<key>'" (spec §0.1).
  runtime::status check(const ::grpc::ServerContextBase& ctx, protocol::feature f) const;

  /// A ticket for one more request that waits on the server (an inference,
  /// a repository call), or UNAVAILABLE when max_inflight are in flight.
  runtime::result<protocol::admission::ticket> admit() const;

  /// The requests admitted and not yet answered.
  int64_t in_flight() const noexcept { return admission_.in_flight(); }

 private:
  protocol::restrictions restrictions_;  // keys as the metadata carries them
  protocol::admission admission_{0};
};

} // namespace conch::transports::grpc
