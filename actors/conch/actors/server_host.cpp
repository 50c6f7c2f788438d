#include "conch/actors/server_host.hpp"

#include <algorithm>
#include <thread>

#include "conch/actors/server/server_core.hpp"

namespace conch::actors {

size_t host_options::default_scheduler_threads() noexcept {
  return std::max<size_t>(1, std::thread::hardware_concurrency() / 2);
}

void configure_actor_system(caf::actor_system_config& cfg, const host_options& host) {
  cfg.set("scheduler.max-threads", host.scheduler_threads);
  cfg.set("scheduler.max-throughput", host.max_throughput);
  cfg.set("work-stealing.aggressive-poll-attempts", host.poll_attempts);
  cfg.set("work-stealing.moderate-poll-attempts", size_t{0});
  cfg.set("work-stealing.relaxed-sleep-duration",
          caf::timespan{std::chrono::duration_cast<caf::timespan>(host.steal_wait)});
  cfg.set("logger.console", caf::atom("none"));
}

runtime::result<std::unique_ptr<server_host>> server_host::start(server_options options,
                                                                 host_options host) {
  caller_thread_guard guard;
  std::unique_ptr<server_host> out{new server_host};
  out->config_ = std::make_unique<caf::actor_system_config>();
  configure_actor_system(*out->config_, host);
  out->system_ = std::make_unique<caf::actor_system>(*out->config_);
  auto srv = server::start(*out->system_, std::move(options));
  if (!srv)
    return srv.error();
  out->server_ = std::make_unique<conch::actors::server>(std::move(*srv));
  return out;
}

server_host::~server_host() {
  caller_thread_guard guard;
  if (server_) {
    (void) server_->stop();
    server_.reset();
  }
  system_.reset();
  config_.reset();
}

} // namespace conch::actors
