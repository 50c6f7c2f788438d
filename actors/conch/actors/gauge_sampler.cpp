#include "conch/actors/gauge_sampler.hpp"

#include <caf/event_based_actor.hpp>

#include "conch/actors/messages.hpp"

namespace conch::actors {

namespace {

caf::behavior gauge_sampler(caf::event_based_actor* self,
                            std::vector<std::function<void()>> samplers,
                            std::chrono::milliseconds interval) {
  self->delayed_send(self, interval, timer_atom_v);
  return {
    [self, samplers, interval](timer_atom) {
      for (const auto& sample : samplers)
        sample();
      self->delayed_send(self, interval, timer_atom_v);
    },
  };
}

} // namespace

caf::actor spawn_gauge_sampler(caf::actor_system& sys, std::vector<std::function<void()>> samplers,
                               std::chrono::milliseconds interval) {
  return sys.spawn<caf::detached>(gauge_sampler, std::move(samplers), interval);
}

} // namespace conch::actors
