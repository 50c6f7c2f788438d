#pragma once

#include "conch/actors/listening_frontend.hpp"
#include "conch/actors/openai_options.hpp"
#include "conch/actors/server.hpp"

namespace conch::actors {

/// The OpenAI-compatible frontend of a server: /v1/completions,
/// /v1/chat/completions, /v1/embeddings, /v1/models, model load and
/// unload, /health/ready and /metrics on its own port, over the HTTP
/// transport (transports/openai/openai_handler.hpp). Supervised and stopped
/// like the other frontends: start() adds it to the server's supervision
/// tree, the server stops it first when it stops (open streams drain within
/// the exit timeout, then end), stop() stops it alone, and it may start
/// again after a stop. Keeps its server alive. start() and stop() block
/// until done, so they must not be called from a thread of the actor
/// system's scheduler. Thread-safe.
class openai_frontend final : public listening_frontend {
 public:
  openai_frontend(server& srv, openai_options options);

  /// Stops the frontend if it runs, while the options its restarts read
  /// still exist.
  ~openai_frontend() { shutdown(); }

  /// Binds the port and starts serving. ALREADY_EXISTS when running;
  /// UNAVAILABLE when the port is in use or the server stopped;
  /// INVALID_ARG for bad options (a restricted API group Triton does not
  /// name, one named twice).
  runtime::status start();

  const openai_options& options() const noexcept { return options_; }

 private:
  openai_options options_;
  std::shared_ptr<runtime::statistics::byte_budget> input_;  // across restarts
};

} // namespace conch::actors

namespace conch {
using actors::openai_frontend;
} // namespace conch
