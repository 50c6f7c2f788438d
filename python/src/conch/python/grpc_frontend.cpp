#include "conch/python/grpc_frontend.hpp"

#include "conch/python/gil.hpp"
#include "conch/python/status.hpp"

namespace conch::python {

py_grpc_frontend::py_grpc_frontend(py_server& srv, actors::grpc_options options)
  : host_(srv.shared_host()) {
  frontend_ = std::make_unique<actors::grpc_frontend>(host_->server(), std::move(options));
}

py_grpc_frontend::~py_grpc_frontend() {
  if (!interpreter_alive()) {
    // Finalizing: no Conch thread can need the GIL any more.
    frontend_.reset();
    host_.reset();
    return;
  }
  // Stopping shuts the gRPC server down, and the last reference to the host
  // joins the actor system's; either may wait for a thread that wants the GIL.
  nogil released;
  frontend_.reset();
  host_.reset();
}

void py_grpc_frontend::start() {
  runtime::status st;
  {
    nogil released;
    st = frontend_->start();
  }
  throw_if_error(st);
}

void py_grpc_frontend::stop() {
  runtime::status st;
  {
    nogil released;
    st = frontend_->stop();
  }
  throw_if_error(st);
}

uint16_t py_grpc_frontend::port() {
  nogil released; // port() takes the lock that start() and stop() hold
  return frontend_->port();
}

} // namespace conch::python
