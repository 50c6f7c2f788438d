#pragma once

#include <memory>

#include "conch/actors/listening_frontend.hpp"
#include "conch/transports/http/server.hpp"
#include "conch/transports/metrics/metrics_handler.hpp"

namespace conch::actors {

/// The metrics frontend's transport, as its frontend supervisor drives it:
/// the HTTP server with the metrics handler. Called by the supervisor, one
/// call at a time; `port()` may be read by any thread once start() returned.
class metrics_transport final : public listening_transport {
 public:
  metrics_transport(transports::http::server_options options,
                    std::shared_ptr<transports::metrics::metrics_handler> handler,
                 std::shared_ptr<runtime::statistics::connection_stats> stats = nullptr,
                 std::shared_ptr<runtime::statistics::byte_budget> input = nullptr);

  std::string name() const override { return "Metrics"; }
  runtime::status start() override;
  void begin_stop(std::function<void()> drained) override;
  void abort() override;
  void set_failure_handler(std::function<void(runtime::status)> failed) override {
    server_.set_failure_handler(std::move(failed));
  }
  void inject_failure() override { server_.inject_loop_failure(); }

  /// The bound port; 0 before start.
  uint16_t port() const noexcept override { return server_.bound_port(); }

 private:
  transports::http::server server_;
};

} // namespace conch::actors
