#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "conch/actors/server_host.hpp"
#include "conch/python/gil.hpp"
#include "conch/python/server.hpp"
#include "conch/python/status.hpp"

namespace conch::python {

/// A frontend (conch::http_frontend, grpc_frontend, metrics_frontend) as
/// Python sees it (_conch.HttpFrontend, GrpcFrontend, MetricsFrontend). It
/// holds the server's host, so the server and its actor system outlive it,
/// and the server stops it when it stops. Every method requires the GIL and
/// releases it while it waits.
template <class Frontend, class Options>
class py_frontend {
 public:
  /// Raises InvalidArgumentError("Server not started") for a stopped server.
  /// Binds nothing yet.
  py_frontend(py_server& srv, Options options) : host_(srv.shared_host()) {
    frontend_ = std::make_unique<Frontend>(host_->server(), std::move(options));
  }

  /// Stops the frontend if it runs, then lets go of the host.
  ~py_frontend() {
    if (!interpreter_alive()) {
      // Finalizing: no Conch thread can need the GIL any more.
      frontend_.reset();
      host_.reset();
      return;
    }
    // Stopping joins the frontend's threads, and the last reference to the
    // host joins the actor system's; either may wait for a thread that wants
    // the GIL.
    nogil released;
    frontend_.reset();
    host_.reset();
  }

  py_frontend(const py_frontend&) = delete;
  py_frontend& operator=(const py_frontend&) = delete;

  /// Binds and starts serving. Raises AlreadyExistsError when running,
  /// UnavailableError when the port is in use or the server stopped.
  void start() { run([this] { return frontend_->start(); }); }

  /// Stops serving, letting requests in flight finish. Raises
  /// UnavailableError when not running; a no-op once the server stopped it.
  void stop() { run([this] { return frontend_->stop(); }); }

  /// The port the latest start bound; 0 before the first start.
  uint16_t port() {
    nogil released; // port() takes the lock that start() and stop() hold
    return frontend_->port();
  }

 private:
  template <class F>
  void run(F&& fn) {
    runtime::status st;
    {
      nogil released;
      st = fn();
    }
    throw_if_error(st);
  }

  // Declared first, destroyed last: the frontend uses the host's server.
  std::shared_ptr<actors::server_host> host_;
  std::unique_ptr<Frontend> frontend_;
};

} // namespace conch::python
