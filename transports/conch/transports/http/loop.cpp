#include "conch/transports/http/loop.hpp"

#include <vector>

#include "conch/transports/http/connection.hpp"
#include "conch/transports/http/listener.hpp"

namespace conch::transports::http {

loop::loop(const server_options& options, std::shared_ptr<handler> h)
  : options_(options), handler_(std::move(h)) {}

loop::~loop() = default;

runtime::status loop::init_loop() {
  if (int rc = uv_loop_init(&uv_); rc < 0)
    return runtime::internal_error(std::string{"cannot create an event loop: "} + uv_strerror(rc));
  loop_open_ = true;
  if (int rc = uv_async_init(&uv_, &wake_, &on_wake); rc < 0)
    return runtime::internal_error(std::string{"cannot create a wake-up handle: "}
                                   + uv_strerror(rc));
  wake_.data = this;
  wake_open_ = true;
  queue_ = std::make_shared<completion_queue>(&wake_);
  return runtime::status::ok();
}

runtime::status loop::open(const sockaddr_storage& addr) {
  CONCH_RUNTIME_RETURN_IF_ERROR(init_loop());
  auto st = open_listener(&uv_, &listener_, addr, options_.reuse_port, options_.listen_backlog,
                          &on_connection, listener_open_);
  listener_.data = this;
  return st;
}

runtime::status loop::open_shared(const loop& first) {
  CONCH_RUNTIME_RETURN_IF_ERROR(init_loop());
  auto st = share_listener(&uv_, &listener_, first.listener_, options_.listen_backlog,
                           &on_connection, listener_open_);
  listener_.data = this;
  return st;
}

uint16_t loop::port() const {
  return listener_open_ ? local_port(listener_) : 0;
}

void loop::dispose() {
  if (!loop_open_)
    return;
  close_listener();
  if (queue_)
    queue_->close();
  if (wake_open_)
    uv_close(reinterpret_cast<uv_handle_t*>(&wake_), nullptr);
  wake_open_ = false;
  uv_run(&uv_, UV_RUN_DEFAULT);
  uv_loop_close(&uv_);
  loop_open_ = false;
}

void loop::run() {
  uv_run(&uv_, UV_RUN_DEFAULT);
  uv_loop_close(&uv_);
  loop_open_ = false;
}

void loop::dispatch(request_ptr req, uint64_t connection_id, uint64_t sequence) {
  // A throwing handler destroys the responder while unwinding, which answers
  // 500; the exception itself stops here, where it entered.
  try {
    handler_->handle(std::move(req), responder{queue_, connection_id, sequence});
  } catch (...) {
  }
}

void loop::on_connection_closed(uint64_t id) {
  connections_.erase(id);
  finish_if_done();
}

void loop::on_wake(uv_async_t* wake) {
  auto& self = *static_cast<loop*>(wake->data);
  auto batch = self.queue_->take();
  // The command first: a stop asked before an answer was sent must shape
  // that answer (Connection: close).
  if (batch.command != loop_command::none)
    self.apply(batch.command);
  for (auto& c : batch.completions) {
    auto it = self.connections_.find(c.connection_id);
    if (it != self.connections_.end())
      it->second->complete(std::move(c));
  }
}

void loop::on_connection(uv_stream_t* server, int status) {
  auto& self = *static_cast<loop*>(server->data);
  if (status < 0 || self.mode_ != mode::running)
    return;
  auto id = self.next_connection_id_++;
  auto [it, _] = self.connections_.emplace(id, std::make_unique<connection>(self, id));
  // On failure the connection is already closing and removes itself.
  (void) it->second->accept(server);
}

void loop::apply(loop_command c) {
  if (c == loop_command::abort)
    mode_ = mode::aborting;
  else if (mode_ == mode::running)
    mode_ = mode::draining;
  else
    return;
  close_listener();
  std::vector<connection*> open;
  open.reserve(connections_.size());
  for (auto& [id, conn] : connections_)
    open.push_back(conn.get());
  // Closing only starts here; connections leave the map in their close
  // callbacks, after this loop.
  for (auto* conn : open) {
    if (mode_ == mode::aborting)
      conn->close_now();
    else
      conn->begin_stop();
  }
  finish_if_done();
}

void loop::close_listener() {
  if (!listener_open_)
    return;
  listener_open_ = false;
  uv_close(reinterpret_cast<uv_handle_t*>(&listener_), nullptr);
}

void loop::finish_if_done() {
  if (mode_ == mode::running || !connections_.empty() || !wake_open_)
    return;
  // Closing the last handles makes uv_run return.
  queue_->close();
  wake_open_ = false;
  uv_close(reinterpret_cast<uv_handle_t*>(&wake_), nullptr);
}

} // namespace conch::transports::http
