#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "conch/runtime/result.hpp"
#include "conch/transports/gateway.hpp"
#include "conch/transports/http/handler.hpp"
#include "conch/transports/http/kserve/admission.hpp"
#include "conch/transports/http/kserve/restrictions.hpp"
#include "conch/transports/http/kserve/route_call.hpp"
#include "conch/transports/protocol/client_shm.hpp"

namespace conch::transports::http::kserve {

/// What a KServe HTTP handler is made from.
struct kserve_handler_options {
  /// The server the requests go to.
  gateway_ptr server;
  /// Requests that wait on the server (inference, repository changes) at
  /// most in flight; beyond it they get 503 at once. 0: no limit.
  int64_t max_inflight = 0;
  /// Where refusals past max_inflight are counted; none when null.
  std::shared_ptr<runtime::statistics::connection_stats> stats;
  /// A regular expression (ECMAScript, case-insensitive); request headers
  /// whose names it finds a match in become parameters of inference
  /// requests. Empty: none.
  std::string header_forward_pattern;
  /// Endpoint groups behind a required header; none when empty.
  std::vector<feature_group> restricted_features;
  /// Whether clients may register shared-memory regions and name them in
  /// inference requests; denied, as Triton's server ships.
  protocol::client_shm client_shm = protocol::client_shm::denied;
};

/// The KServe v2 HTTP protocol over the HTTP transport: routes each request
/// (404 for unknown paths, 405 for a method an endpoint does not take),
/// admits the ones that wait on the server, and hands each to its endpoint
/// in routes/. Runs on the loop threads; never blocks. Thread-safe.
class kserve_handler final : public handler {
 public:
  /// A handler; INVALID_ARG when the header pattern is not a valid regular
  /// expression or a restricted group is malformed (restrictions::make).
  static runtime::result<std::shared_ptr<kserve_handler>> make(kserve_handler_options options);

  void handle(request_ptr req, responder res) override;

  /// Requests admitted and not yet answered.
  int64_t in_flight() const noexcept { return admission_.in_flight(); }

  // For handlers that serve a dialect over these routes (cloud/): the same
  // server, restrictions and admission as the KServe endpoints.

  /// The server the requests go to.
  const gateway_ptr& server() const noexcept { return settings_.server; }

  /// The 403 answer for a request with `headers` to restricted feature `f`;
  /// nullopt when it may go on.
  std::optional<response> refuse_restricted(feature f, const header_map& headers) const;

  /// A ticket that counts a request waiting on the server, or the 503 answer
  /// when max_inflight requests wait already.
  runtime::result<admission::ticket> admit() const;

 private:
  kserve_handler(route_settings settings, restrictions restricted, int64_t max_inflight,
                 std::shared_ptr<runtime::statistics::connection_stats> stats)
    : settings_(std::move(settings)), restricted_(std::move(restricted)),
      admission_(max_inflight, std::move(stats)) {}

  route_settings settings_;
  restrictions restricted_;
  admission admission_;
};

} // namespace conch::transports::http::kserve
