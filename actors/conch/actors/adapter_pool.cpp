#include "conch/actors/adapter_pool.hpp"

#include <algorithm>

#include "conch/actors/adapter.hpp"

namespace conch::actors {

namespace {

using pool_ptr = adapter_pool_actor::stateful_pointer<adapter_pool_state>;

// Adapters are monitored, not linked: a link would carry a `kill` sent to one
// adapter up to the pool. The pool ends its adapters itself when it stops.
void start_adapter(pool_ptr self, size_t slot) {
  auto a = self->spawn<caf::monitored>(adapter, caf::actor_cast<caf::actor>(self));
  // The table goes first: mail from the pool reaches the adapter before any
  // request sent after the slot is published.
  if (self->state.table)
    self->request(a, caf::infinite, table_atom_v, self->state.table)
      .then([](caf::ok_atom) {}, [](caf::error&) {});
  self->state.adapters[slot] = a;
  self->state.slots->publish(slot, a);
}

void on_adapter_down(pool_ptr self, const caf::down_msg& msg) {
  auto& adapters = self->state.adapters;
  for (size_t i = 0; i < adapters.size(); ++i) {
    if (!adapters[i] || adapters[i].address() != msg.source)
      continue;
    adapters[i] = nullptr;
    if (self->state.restarts < self->state.restart_budget) {
      ++self->state.restarts;
      start_adapter(self, i);
    }
    return;
  }
}

void stop_pool(pool_ptr self, const caf::error& reason) {
  for (auto& rp : self->state.broadcasts)
    if (rp->pending())
      rp->deliver(caf::ok_atom_v);
  self->state.broadcasts.clear();
  for (auto& a : self->state.adapters)
    if (a)
      self->send_exit(a, caf::exit_reason::user_shutdown);
  self->quit(reason);
}

caf::result<caf::ok_atom> broadcast(pool_ptr self, model_table_ptr table) {
  self->state.table = table;
  // One shared promise: whichever of the acknowledgements, or the pool's
  // own end, comes last answers it, and only once.
  auto rp = std::make_shared<caf::response_promise>(self->make_response_promise());
  auto& pending = self->state.broadcasts;
  pending.erase(std::remove_if(pending.begin(), pending.end(),
                               [](const auto& p) { return !p->pending(); }),
                pending.end());
  pending.push_back(rp);
  auto remaining = std::make_shared<size_t>(0);
  for (auto& a : self->state.adapters)
    if (a)
      ++*remaining;
  if (*remaining == 0) {
    rp->deliver(caf::ok_atom_v);
    return *rp;
  }
  auto one_done = [rp, remaining] {
    if (--*remaining == 0 && rp->pending())
      rp->deliver(caf::ok_atom_v);
  };
  for (auto& a : self->state.adapters)
    if (a)
      self->request(a, caf::infinite, table_atom_v, table)
        .then([one_done](caf::ok_atom) { one_done(); }, [one_done](caf::error&) { one_done(); });
  return *rp;
}

} // namespace

adapter_pool_actor::behavior_type adapter_pool(pool_ptr self,
                                               std::shared_ptr<adapter_slots> slots,
                                               size_t restart_budget) {
  self->state.slots = std::move(slots);
  self->state.restart_budget = restart_budget;
  self->state.adapters.resize(self->state.slots->size());
  for (size_t i = 0; i < self->state.adapters.size(); ++i)
    start_adapter(self, i);
  self->set_down_handler([self](caf::down_msg& msg) { on_adapter_down(self, msg); });
  self->set_exit_handler([self](caf::exit_msg& msg) { stop_pool(self, msg.reason); });

  return {
    [self](table_atom, model_table_ptr& table) { return broadcast(self, std::move(table)); },
    [self](caf::get_atom) { return self->state.adapters; },
  };
}

} // namespace conch::actors
