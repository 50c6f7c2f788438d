#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <gtest/gtest.h>

#include "conch/actors/server.hpp"
#include "conch/actors/server_host.hpp"
#include "support/response_collector.hpp"
#include "support/temp_repository.hpp"

namespace conch::tests {

/// Polls `condition` until it holds or `timeout` passes; true when it held.
/// For state the API only lets a test read, never to wait for time to pass.
template <class Condition>
bool eventually(Condition condition, std::chrono::milliseconds timeout = std::chrono::seconds{5}) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds{1});
  }
  return true;
}

/// Submits `request` and waits for its final response; an error response
/// "test: no final response" when none came within `timeout`.
inline runtime::inference_response infer_sync(actors::server& srv,
                                              runtime::inference_request request,
                                              std::chrono::milliseconds timeout
                                              = std::chrono::seconds{10}) {
  response_collector c;
  srv.submit(std::move(request), c.callback());
  c.wait_finals(1, timeout);
  return c.final_response();
}

/// Options for a server over `repository` with test-friendly settings: no
/// GPUs, no automatic polling, a short exit timeout.
inline actors::server_options options_for(const std::string& repository,
                                          actors::control_mode mode = actors::control_mode::none) {
  actors::server_options o;
  o.model_repository = {repository};
  o.model_control_mode = mode;
  o.gpu_count = 0;
  o.repository_poll_secs = 0;
  o.exit_timeout = 10;
  return o;
}

/// Options over the example repository that load only its C++ models
/// (EXPLICIT mode with those as startup models).
inline actors::server_options example_options() {
  auto o = options_for(example_repository(), actors::control_mode::explicit_);
  o.startup_models = example_cpp_models();
  return o;
}

/// A fixture owning a CAF actor system configured with
/// configure_actor_system. Servers started through `start` are stopped
/// before the actor system goes.
class server_fixture : public ::testing::Test {
 protected:
  server_fixture() {
    actors::host_options host;
    host.scheduler_threads = 2;
    actors::configure_actor_system(config_, host);
    system_ = std::make_unique<caf::actor_system>(config_);
  }

  ~server_fixture() override {
    for (auto& s : servers_)
      (void) s.stop();
    servers_.clear();
    system_.reset();
  }

  caf::actor_system& sys() { return *system_; }

  /// Starts a server and remembers it for teardown.
  runtime::result<actors::server> start(actors::server_options options) {
    auto s = actors::server::start(*system_, std::move(options));
    if (s)
      servers_.push_back(*s);
    return s;
  }

 private:
  caf::actor_system_config config_;
  std::unique_ptr<caf::actor_system> system_;
  std::vector<actors::server> servers_;
};

} // namespace conch::tests
