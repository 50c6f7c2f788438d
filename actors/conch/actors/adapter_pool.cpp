#include "conch/actors/adapter_pool.hpp"

#include <algorithm>

#include "conch/actors/adapter.hpp"

namespace conch::actors {

namespace {

using pool_ptr = caf::stateful_actor<adapter_pool_state>*;

void start_adapter(pool_ptr self, size_t slot) {
  auto a = self->spawn<caf::linked>(adapter);
  if (self->state.table)
    self->send(a, table_atom_v, self->state.table);
  self->state.adapters[slot] = a;
  self->state.slots->publish(slot, a);
}

void on_exit_message(pool_ptr self, const caf::exit_msg& msg) {
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
  // Not an adapter: our supervisor is stopping us.
  for (auto& rp : self->state.broadcasts)
    if (rp->pending())
      rp->deliver(caf::ok_atom_v);
  self->state.broadcasts.clear();
  self->quit(msg.reason);
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

caf::behavior adapter_pool(pool_ptr self, std::shared_ptr<adapter_slots> slots,
                           size_t restart_budget) {
  self->state.slots = std::move(slots);
  self->state.restart_budget = restart_budget;
  self->state.adapters.resize(self->state.slots->size());
  for (size_t i = 0; i < self->state.adapters.size(); ++i)
    start_adapter(self, i);
  self->set_exit_handler([self](caf::exit_msg& msg) { on_exit_message(self, msg); });
  return {
    [self](table_atom, model_table_ptr& table) { return broadcast(self, std::move(table)); },
    [self](caf::get_atom) { return self->state.adapters; },
  };
}

} // namespace conch::actors
