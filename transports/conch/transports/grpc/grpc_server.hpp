#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/server.h>

#include "conch/runtime/status.hpp"
#include "conch/transports/gateway.hpp"
#include "conch/transports/grpc/health_service.hpp"
#include "conch/transports/grpc/inference_service.hpp"
#include "conch/transports/grpc/inflight_calls.hpp"
#include "conch/runtime/statistics/connection_stats.hpp"
#include "conch/transports/grpc/keepalive.hpp"
#include "conch/transports/grpc/listener_options.hpp"
#include "conch/transports/protocol/restrictions.hpp"
#include "conch/transports/grpc/tls_credentials.hpp"

namespace conch::transports::grpc {

/// What the gRPC server listens on (listener_options) and how it serves.
struct server_options : listener_options {
  /// TLS (and mutual TLS) of the listening port; plaintext by default.
  tls_options tls;
  /// Keepalive, HTTP/2 ping and connection age channel arguments.
  keepalive_options keepalive;
  /// The compression level of inference responses (ModelInfer and
  /// ModelStreamInfer): 0 none, 1 low, 2 medium, 3 high.
  int infer_compression_level = 0;
  /// An ECMAScript regular expression, matched without regard to case:
  /// request metadata whose keys it finds a match in become string
  /// parameters of inference requests. Empty: none.
  std::string forward_header_pattern;
  /// Protocol groups behind required metadata: a call to a feature of a
  /// group without metadata `triton-grpc-protocol-<key>: <value>` gets
  /// UNAVAILABLE.
  std::vector<protocol::feature_group> restricted_features;
  /// Whether clients may register shared-memory regions and name them in
  /// inference requests; denied, as Triton's server ships.
  protocol::client_shm client_shm = protocol::client_shm::denied;
  /// Requests waiting on the server (inference, repository calls) at most
  /// in flight; beyond it they get UNAVAILABLE at once. 0: no limit.
  int64_t max_inflight = 0;
  /// The largest message, received or sent, in bytes (Triton's: INT32_MAX).
  int max_message_size = 2'147'483'647;
  /// Bytes of requests in flight at most (their encoded size); a request
  /// beyond it gets UNAVAILABLE, and one larger than all of it, which could
  /// never be admitted, INVALID_ARGUMENT. 0: no limit.
  size_t max_inflight_bytes = 0;
  /// Bytes of responses a stream may have waiting for its client before it
  /// stops reading further requests.
  size_t stream_high_water = 4 * 1024 * 1024;
  /// Bytes of responses a stream may have waiting before it ends with
  /// RESOURCE_EXHAUSTED (its requests cancelled): a client that does not
  /// read a decoupled model's responses.
  size_t max_stream_backlog = 64 * 1024 * 1024;
  /// What the server counts at its edge (refusals, bytes); its own if null.
  std::shared_ptr<runtime::statistics::connection_stats> stats;
  /// The budget of request bytes (its limit max_inflight_bytes); its own if
  /// null.
  std::shared_ptr<runtime::statistics::byte_budget> input;
  /// How long a stop lets calls in flight finish before gRPC cancels what
  /// is left (the deadline of grpc::Server::Shutdown); the server's exit
  /// timeout.
  std::chrono::milliseconds shutdown_timeout{std::chrono::seconds{30}};
};

/// The KServe gRPC server: owns the grpc::Server with the inference and
/// health services. start(), begin_stop() and abort() are called one at a
/// time by one owner; bound_port() is thread-safe.
class grpc_server {
 public:
  grpc_server(server_options options, gateway_ptr server);
  grpc_server(const grpc_server&) = delete;
  grpc_server& operator=(const grpc_server&) = delete;

  /// Shuts the server down now if it still runs, and joins its stopper.
  ~grpc_server();

  /// Binds the port and starts serving; UNAVAILABLE when the address cannot
  /// be bound (a port in use); INVALID_ARG for a TLS file that cannot be
  /// read, a compression level out of range, a bad forward pattern or a
  /// malformed restricted group.
  runtime::status start();

  /// Admits no more inference calls, lets those in flight finish, shuts the
  /// server down, and then calls `drained` from a thread of its own.
  void begin_stop(std::function<void()> drained);

  /// Cancels the inference calls in flight so that a shutdown completes
  /// now; shuts the server down if begin_stop did not. A begin_stop after
  /// it still has its `drained` called, once the shutdown ends.
  void abort();

  /// The bound port; 0 before start.
  uint16_t bound_port() const noexcept { return port_; }

 private:
  // Shuts down and waits on a thread of its own, since Shutdown blocks
  // until every call finished; `drained` (may be empty) runs when it ended.
  void shut_down(std::function<void()> drained);

  server_options options_;
  std::shared_ptr<inflight_calls> calls_;
  inference_service inference_;
  health_service health_;
  std::unique_ptr<::grpc::Server> server_;
  std::atomic<uint16_t> port_{0};
  std::mutex stop_mu_;                 // guards the three below
  std::vector<std::function<void()>> drained_; // whom the stopper tells
  bool shut_ = false;                  // the stopper's shutdown ended
  std::thread stopper_;
};

} // namespace conch::transports::grpc
