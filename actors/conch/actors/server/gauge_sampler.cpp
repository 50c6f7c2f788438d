#include "conch/actors/server/gauge_sampler.hpp"

namespace conch::actors {

gauge_sampler::gauge_sampler(caf::actor_config& cfg, std::vector<std::function<void()>> samplers,
                             std::chrono::milliseconds interval)
  : gauge_sampler_actor::base(cfg), samplers_(std::move(samplers)), interval_(interval) {}

gauge_sampler_actor::behavior_type gauge_sampler::make_behavior() {
  schedule();
  return {
    [this](timer_atom) {
      for (const auto& sample : samplers_)
        sample();
      schedule();
    },
  };
}

void gauge_sampler::schedule() {
  delayed_send(caf::actor_cast<gauge_sampler_actor>(this), interval_, timer_atom_v);
}

gauge_sampler_actor spawn_gauge_sampler(caf::actor_system& sys,
                                        std::vector<std::function<void()>> samplers,
                                        std::chrono::milliseconds interval) {
  return sys.spawn<gauge_sampler, caf::detached>(std::move(samplers), interval);
}

} // namespace conch::actors
