#include "conch/actors/cpu_sampler.hpp"

#include <caf/event_based_actor.hpp>

#include "conch/actors/messages.hpp"

namespace conch::actors {

namespace {

caf::behavior cpu_sampler(caf::event_based_actor* self,
                          std::shared_ptr<runtime::statistics::cpu_gauges> gauges,
                          std::chrono::milliseconds interval) {
  self->delayed_send(self, interval, timer_atom_v);
  return {
    [self, gauges, interval](timer_atom) {
      (void) gauges->sample();
      self->delayed_send(self, interval, timer_atom_v);
    },
  };
}

} // namespace

caf::actor spawn_cpu_sampler(caf::actor_system& sys,
                             std::shared_ptr<runtime::statistics::cpu_gauges> gauges,
                             std::chrono::milliseconds interval) {
  return sys.spawn<caf::detached>(cpu_sampler, std::move(gauges), interval);
}

} // namespace conch::actors
