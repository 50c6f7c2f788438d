#pragma once

#include "conch/actors/listening_frontend.hpp"
#include "conch/actors/http_options.hpp"
#include "conch/actors/server.hpp"
#include "conch/transports/http/cloud/sagemaker_models.hpp"

namespace conch::actors {

/// The KServe v2 HTTP frontend of a server. start() adds it to the server's
/// supervision tree (a frontend supervisor owning the loop threads), so the
/// server stops it first when it stops; stop() stops it alone, letting
/// requests in flight finish. It may be started again after a stop. Keeps
/// its server alive. start() and stop() block until done, so they must not
/// be called from a thread of the actor system's scheduler. Thread-safe.
class http_frontend final : public listening_frontend {
 public:
  http_frontend(server& srv, http_options options);

  /// Stops the frontend if it runs, while the options its restarts read
  /// still exist.
  ~http_frontend() { shutdown(); }

  /// Binds the port and starts serving. ALREADY_EXISTS when running;
  /// UNAVAILABLE when the port is in use or the server stopped;
  /// INVALID_ARG for bad options (restricted_features included).
  runtime::status start();

  const http_options& options() const noexcept { return options_; }

 private:
  http_options options_;
  std::shared_ptr<runtime::statistics::byte_budget> input_;  // across restarts
  // The models a SageMaker multi-model endpoint loaded, across restarts.
  std::shared_ptr<transports::http::cloud::sagemaker_models> sagemaker_models_
    = std::make_shared<transports::http::cloud::sagemaker_models>();
};

} // namespace conch::actors

namespace conch {
using actors::http_frontend;
} // namespace conch
