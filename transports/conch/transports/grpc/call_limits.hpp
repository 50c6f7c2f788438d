#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include <grpcpp/server_context.h>

#include "conch/runtime/result.hpp"
#include "conch/runtime/statistics/connection_stats.hpp"
#include "conch/transports/protocol/admission.hpp"
#include "conch/transports/protocol/client_shm.hpp"
#include "conch/transports/protocol/restrictions.hpp"

namespace conch::transports::grpc {

/// What limits the bytes of a gRPC server's calls.
struct call_byte_limits {
  /// Bytes of requests in flight at most (0: no limit).
  size_t max_inflight_bytes = 0;
  /// A stream stops reading past this many bytes of responses waiting.
  size_t stream_high_water = 4 * 1024 * 1024;
  /// A stream ends with RESOURCE_EXHAUSTED past this many.
  size_t max_stream_backlog = 64 * 1024 * 1024;
};


/// What limits the calls of one gRPC server: restricted protocol groups, the
/// number of requests in flight, and whether clients may use shared memory.
/// Read-only once made; thread-safe.
class call_limits {
 public:
  /// The prefix of the metadata key a restricted group requires: a group
  /// with header `k` needs metadata `triton-grpc-protocol-<k>` (lower case,
  /// as gRPC sends keys).
  static constexpr std::string_view header_prefix = "triton-grpc-protocol-";

  /// No group restricted, no limit on requests in flight.
  call_limits() = default;

  /// The limits of `groups` and `max_inflight` (0: no limit), counting
  /// refusals in `stats` and request bytes in `input` where given (else in
  /// their own; `input`'s limit then is max_inflight_bytes). INVALID_ARG for a malformed
  /// group (protocol::restrictions::make) or a negative limit.
  static runtime::result<call_limits> make(
    const std::vector<protocol::feature_group>& groups, int64_t max_inflight,
    call_byte_limits bytes = {}, std::shared_ptr<runtime::statistics::connection_stats> stats = nullptr,
    std::shared_ptr<runtime::statistics::byte_budget> input = nullptr,
    protocol::client_shm client_shm = protocol::client_shm::denied);

  /// Ok when the call of `ctx` may reach feature `f`: its group is not
  /// restricted, or the client metadata carries the group's key and value.
  /// Else UNAVAILABLE "This protocol is restricted, expecting header
  /// '<key>'" (spec §0.1).
  runtime::status check(const ::grpc::ServerContextBase& ctx, protocol::feature f) const;

  /// A ticket for one more request that waits on the server (an inference,
  /// a repository call) of `bytes` encoded bytes, or UNAVAILABLE when
  /// max_inflight are in flight or the bytes would pass max_inflight_bytes.
  runtime::result<protocol::admission::ticket> admit(size_t bytes = 0) const;

  const call_byte_limits& bytes() const noexcept { return bytes_; }

  /// Whether clients may register shared-memory regions and name them in
  /// inference requests (denied unless made otherwise).
  protocol::client_shm client_shm() const noexcept { return client_shm_; }

  /// Where the server counts (never null).
  const std::shared_ptr<runtime::statistics::connection_stats>& stats() const noexcept {
    return stats_;
  }

  /// The budget of request bytes (never null).
  const std::shared_ptr<runtime::statistics::byte_budget>& input() const noexcept {
    return input_;
  }

  /// The requests admitted and not yet answered.
  int64_t in_flight() const noexcept { return admission_.in_flight(); }

 private:
  protocol::restrictions restrictions_;  // keys as the metadata carries them
  protocol::admission admission_{0};
  call_byte_limits bytes_;
  protocol::client_shm client_shm_ = protocol::client_shm::denied;
  std::shared_ptr<runtime::statistics::connection_stats> stats_ =
    std::make_shared<runtime::statistics::connection_stats>();
  std::shared_ptr<runtime::statistics::byte_budget> input_ =
    std::make_shared<runtime::statistics::byte_budget>(0);
};

} // namespace conch::transports::grpc
