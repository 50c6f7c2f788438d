#pragma once

#include <memory>

#include "conch/actors/listening_frontend.hpp"
#include "conch/transports/http/kserve/kserve_handler.hpp"
#include "conch/transports/http/server.hpp"

namespace conch::actors {

/// The transport of an HTTP frontend, as its frontend supervisor drives it:
/// the HTTP server with the frontend's handler (KServe's, or SageMaker's
/// over it). Called by the supervisor,
/// one call at a time; `port()` may be read by any thread once start()
/// returned.
class http_transport final : public listening_transport {
 public:
  http_transport(transports::http::server_options options,
                 std::shared_ptr<transports::http::handler> handler,
                 std::shared_ptr<runtime::statistics::connection_stats> stats = nullptr,
                 std::shared_ptr<runtime::statistics::byte_budget> input = nullptr,
                 std::string name = "HTTP");

  std::string name() const override { return name_; }
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
  std::string name_;
};

} // namespace conch::actors
