#include "conch/transports/http/loop.hpp"

#include <vector>

#include <sched.h>

#include "conch/transports/http/connection.hpp"
#include "conch/transports/http/listener.hpp"

namespace conch::transports::http {

namespace {

// How long the loop polls for answers, after its last dispatch or answer,
// before it sleeps until a responder wakes it.
constexpr uint64_t poll_budget_ns = 50'000;

bool is_final(completion_kind kind) noexcept {
  return kind == completion_kind::respond || kind == completion_kind::stream_end
         || kind == completion_kind::abandon;
}

} // namespace

loop::loop(const server_options& options, std::shared_ptr<handler> h,
           std::shared_ptr<loop_shared> shared)
  : options_(options), handler_(std::move(h)), shared_(std::move(shared)) {}

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
  uv_idle_init(&uv_, &poll_);
  poll_.data = this;
  poll_open_ = true;
  uv_idle_init(&uv_, &take_);
  take_.data = this;
  take_open_ = true;
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
  if (poll_open_)
    uv_close(reinterpret_cast<uv_handle_t*>(&poll_), nullptr);
  poll_open_ = false;
  if (take_open_)
    uv_close(reinterpret_cast<uv_handle_t*>(&take_), nullptr);
  take_open_ = false;
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
  ++in_flight_;
  // A handler may answer before it returns (a health check, a model run on
  // this thread): that answer needs no wake-up through the kernel. The loop
  // takes it on its next turn, after the input at hand is parsed.
  queue_->begin_own_pushes();
  try {
    handler_->handle(std::move(req), responder{queue_, connection_id, sequence});
  } catch (...) {
  }
  if (queue_->end_own_pushes() && !take_armed_ && take_open_) {
    take_armed_ = true;
    // An active idle handle keeps the next turn from sleeping.
    uv_idle_start(&take_, &on_own_answers);
  }
  start_polling();
}

void loop::on_own_answers(uv_idle_t* take) {
  auto& self = *static_cast<loop*>(take->data);
  self.take_armed_ = false;
  uv_idle_stop(take);
  self.take_completions();
}

void loop::on_connection_closed(uint64_t id) {
  connections_.erase(id);
  finish_if_done();
}

void loop::on_wake(uv_async_t* wake) {
  static_cast<loop*>(wake->data)->take_completions();
}

void loop::take_completions() {
  auto batch = queue_->take();
  // The command first: a stop asked before an answer was sent must shape
  // that answer (Connection: close).
  if (batch.command != loop_command::none)
    apply(batch.command);
  for (auto& c : batch.completions) {
    if (is_final(c.kind) && in_flight_ > 0)
      --in_flight_;
    auto it = connections_.find(c.connection_id);
    if (it != connections_.end())
      it->second->complete(std::move(c));
  }
}

void loop::start_polling() {
  if (in_flight_ == 0 || !poll_open_)
    return;
  poll_until_ns_ = uv_hrtime() + poll_budget_ns;
  if (polling_ || shared_->poll_token.exchange(true, std::memory_order_acquire))
    return;
  polling_ = true;
  queue_->set_polled(true);
  // An active idle handle makes every loop iteration poll for I/O without
  // blocking, and run on_poll.
  uv_idle_start(&poll_, &on_poll);
}

void loop::stop_polling() {
  if (!polling_)
    return;
  polling_ = false;
  uv_idle_stop(&poll_);
  shared_->poll_token.store(false, std::memory_order_release);
  if (queue_->set_polled(false))
    take_completions();
}

void loop::on_poll(uv_idle_t* poll) {
  auto& self = *static_cast<loop*>(poll->data);
  if (self.queue_->ready()) {
    self.take_completions();
    self.poll_until_ns_ = uv_hrtime() + poll_budget_ns;
  } else {
    // Let a thread that has work run first: on a small machine it is
    // likely the one this loop waits for.
    sched_yield();
  }
  if (uv_hrtime() >= self.poll_until_ns_)
    self.stop_polling();
}

void loop::on_connection(uv_stream_t* server, int status) {
  auto& self = *static_cast<loop*>(server->data);
  if (status < 0 || self.mode_ != mode::running)
    return;
  auto id = self.next_connection_id_++;
  auto [it, _] = self.connections_.emplace(id, std::make_unique<connection>(self, id));
  // On failure the connection is already closing and removes itself.
  if (it->second->accept(server) < 0)
    return;
  auto& stats = self.stats();
  auto open = stats.open.fetch_add(1, std::memory_order_relaxed) + 1;
  stats.accepted.fetch_add(1, std::memory_order_relaxed);
  auto cap = self.options_.policy.max_connections;
  if (cap != 0 && static_cast<size_t>(open) > cap) {
    // Over the cap: accepted only to take it off the backlog, and closed. It
    // gives its place back at once, so that it never keeps out the next one.
    stats.open.fetch_sub(1, std::memory_order_relaxed);
    stats.refused.fetch_add(1, std::memory_order_relaxed);
    it->second->close_now();
    return;
  }
  it->second->counted();
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
  stop_polling();
  if (!wake_open_)
    return;  // a command among the completions just taken finished already
  queue_->close();
  wake_open_ = false;
  uv_close(reinterpret_cast<uv_handle_t*>(&wake_), nullptr);
  poll_open_ = false;
  uv_close(reinterpret_cast<uv_handle_t*>(&poll_), nullptr);
  take_open_ = false;
  uv_close(reinterpret_cast<uv_handle_t*>(&take_), nullptr);
}

} // namespace conch::transports::http
