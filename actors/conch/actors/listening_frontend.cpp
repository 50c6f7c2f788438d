#include "conch/actors/listening_frontend.hpp"

#include <algorithm>
#include <string>

#include <caf/send.hpp>

#include "conch/actors/messages.hpp"

#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

runtime::status check_port(int port) {
  if (port < 0 || port > 65535)
    return runtime::invalid_argument("port must be between 0 and 65535, got "
                                     + std::to_string(port));
  return runtime::status::ok();
}

runtime::status check_thread_count(int n) {
  if (n < 1)
    return runtime::invalid_argument("thread_count must be greater than 0, got "
                                     + std::to_string(n));
  return runtime::status::ok();
}

std::chrono::milliseconds transport_stop_budget(uint32_t exit_timeout) {
  int64_t total = int64_t{exit_timeout} * 1000;
  int64_t margin = std::min<int64_t>(1000, total / 5);
  return std::chrono::milliseconds{std::max<int64_t>(1, total - margin)};
}

listening_frontend::listening_frontend(server& srv, std::string service, std::string kind)
  : srv_(srv), service_(std::move(service)), kind_(std::move(kind)) {}

listening_frontend::~listening_frontend() { shutdown(); }

void listening_frontend::publish_edge(std::shared_ptr<const runtime::statistics::byte_budget> input,
                                      bool connections) {
  edge_metrics_ = std::make_shared<runtime::statistics::connection_metrics>(
    kind_, edge_, std::move(input), connections);
  srv_.add_metric_source(edge_metrics_);
}

void listening_frontend::shutdown() {
  frontend_actor fe;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    fe = std::move(supervisor_);
    supervisor_ = nullptr;
  }
  if (fe)
    (void) srv_.stop_frontend(fe);
}

runtime::status listening_frontend::start_transport(const std::string& address,
                                                    const transport_maker& make) {
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (!srv_.live()) {
      // The server stopped, and stopped this frontend with it.
      supervisor_ = nullptr;
      return runtime::unavailable("the server is not running");
    }
    if (supervisor_ && health_ && health_->failed())
      return runtime::unavailable(health_->failure().message()
                                  + "; stop it before starting it again");
    if (supervisor_ || starting_)
      return runtime::already_exists(kind_ + " server is already running.");
    starting_ = true;
  }
  // Unlocked while the server's tree starts the transport: a stop or a
  // port() meanwhile must not wait for it.
  auto transport = make(0);
  auto health = std::make_shared<frontend_health>();
  runtime::result<frontend_actor> fe{runtime::unavailable("not started")};
  if (transport) {
    // A transport that fails while serving is replaced on the port it bound.
    auto restart = std::make_shared<frontend_restart>();
    restart->make = [make](const frontend_transport& failed)
      -> runtime::result<frontend_transport_ptr> {
      const auto* listening = dynamic_cast<const listening_transport*>(&failed);
      auto fresh = make(listening != nullptr ? listening->port() : 0);
      if (!fresh)
        return fresh.error();
      return frontend_transport_ptr{std::move(*fresh)};
    };
    restart->budget = srv_.options().restart_budget;
    restart->health = health;
    fe = srv_.add_frontend(*transport, restart);
  }
  std::lock_guard<std::mutex> guard{mutex_};
  starting_ = false;
  if (!transport)
    return transport.error();
  if (!fe) {
    CONCH_LOG_ERROR << "failed to start " << service_ << ": " << fe.error().message();
    return fe.error();
  }
  supervisor_ = std::move(*fe);
  health_ = std::move(health);
  port_ = (*transport)->port();
  address_ = address;
  CONCH_LOG_INFO << "Started " << service_ << " at " << address_ << ":" << port_;
  return runtime::status::ok();
}

runtime::status listening_frontend::stop() {
  frontend_actor fe;
  std::string address;
  uint16_t port = 0;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (supervisor_) {
      fe = std::move(supervisor_);
      supervisor_ = nullptr;
      stopping_ = fe;
    } else if (stopping_) {
      // Another thread stops it right now: wait for that stop with it.
      fe = stopping_;
    } else {
      return runtime::unavailable(kind_ + " server is not running.");
    }
    address = address_;
    port = port_;
  }
  // Unlocked: the supervisor answers every stop that races, and a stopped
  // server (which stopped this frontend first) makes it a no-op.
  auto st = srv_.stop_frontend(fe);
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (stopping_ == fe)
      stopping_ = nullptr;
  }
  if (st)
    CONCH_LOG_INFO << "Stopped " << service_ << " at " << address << ":" << port;
  else
    CONCH_LOG_ERROR << "failed to stop " << service_ << ": " << st.message();
  return st;
}

uint16_t listening_frontend::port() const {
  std::lock_guard<std::mutex> guard{mutex_};
  if (supervisor_ && health_ && health_->failed())
    return 0;
  return port_;
}

size_t listening_frontend::restarts() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return health_ ? health_->restarts() : 0;
}

runtime::status listening_frontend::failure() const {
  std::lock_guard<std::mutex> guard{mutex_};
  if (supervisor_ && health_ && health_->failed())
    return health_->failure();
  return runtime::status::ok();
}

void listening_frontend::inject_failure() {
  frontend_actor fe;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    fe = supervisor_;
  }
  if (fe)
    caf::anon_send(fe, crash_atom_v);
}

} // namespace conch::actors
