#pragma once

#include <chrono>
#include <functional>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "conch/actors/messages.hpp"

namespace conch::actors {

/// What the gauge sampler takes: only its own timer. It runs until it is
/// sent an exit message.
using gauge_sampler_actor = caf::typed_actor<caf::reacts_to<timer_atom>>;

/// Calls every function of its samplers each interval (the server's
/// metrics_interval): the CPU and GPU gauges.
class gauge_sampler : public gauge_sampler_actor::base {
 public:
  gauge_sampler(caf::actor_config& cfg, std::vector<std::function<void()>> samplers,
                std::chrono::milliseconds interval);

  behavior_type make_behavior() override;
  void on_exit() override { samplers_.clear(); }

 private:
  void schedule();

  std::vector<std::function<void()>> samplers_;
  std::chrono::milliseconds interval_;
};

/// Spawns a gauge sampler. Detached: reading /proc or NVML never holds a
/// scheduler thread.
gauge_sampler_actor spawn_gauge_sampler(caf::actor_system& sys,
                                        std::vector<std::function<void()>> samplers,
                                        std::chrono::milliseconds interval);

} // namespace conch::actors
