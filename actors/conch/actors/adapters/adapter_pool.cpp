#include "conch/actors/adapters/adapter_pool.hpp"

#include <algorithm>

#include "conch/actors/adapters/adapter.hpp"

namespace conch::actors {

adapter_pool::adapter_pool(caf::actor_config& cfg, std::shared_ptr<adapter_slots> slots,
                           size_t restart_budget)
  : adapter_pool_actor::base(cfg), slots_(std::move(slots)), restart_budget_(restart_budget) {}

adapter_pool_actor::behavior_type adapter_pool::make_behavior() {
  adapters_.resize(slots_->size());
  for (size_t i = 0; i < adapters_.size(); ++i)
    start_adapter(i);
  set_down_handler([this](caf::down_msg& msg) { on_adapter_down(msg); });
  set_exit_handler([this](caf::exit_msg& msg) { stop(msg.reason); });
  return {
    [this](table_atom, model_table_ptr& table) { return broadcast(std::move(table)); },
    [this](caf::get_atom) { return adapters_; },
  };
}

void adapter_pool::on_exit() {
  // What the pool holds goes as it ends, not when its last handle does; a
  // hand-out still open is answered (CAF 0.17 does not break promises).
  for (auto& rp : broadcasts_)
    if (rp->pending())
      rp->deliver(caf::ok_atom_v);
  broadcasts_.clear();
  adapters_.clear();
  table_.reset();
}

// Adapters are monitored, not linked: a link would carry a `kill` sent to one
// adapter up to the pool. The pool ends its adapters itself when it stops.
void adapter_pool::start_adapter(size_t slot) {
  auto a = spawn<adapter, caf::monitored>(caf::actor_cast<caf::actor>(this));
  // The table goes first: mail from the pool reaches the adapter before any
  // request sent after the slot is published.
  if (table_)
    request(a, caf::infinite, table_atom_v, table_).then([](caf::ok_atom) {}, [](caf::error&) {});
  adapters_[slot] = a;
  slots_->publish(slot, a);
}

void adapter_pool::on_adapter_down(const caf::down_msg& msg) {
  for (size_t i = 0; i < adapters_.size(); ++i) {
    if (!adapters_[i] || adapters_[i].address() != msg.source)
      continue;
    adapters_[i] = nullptr;
    if (restarts_ < restart_budget_) {
      ++restarts_;
      start_adapter(i);
    }
    return;
  }
}

void adapter_pool::stop(const caf::error& reason) {
  for (auto& rp : broadcasts_)
    if (rp->pending())
      rp->deliver(caf::ok_atom_v);
  broadcasts_.clear();
  for (auto& a : adapters_)
    if (a)
      send_exit(a, caf::exit_reason::user_shutdown);
  quit(reason);
}

caf::result<caf::ok_atom> adapter_pool::broadcast(model_table_ptr table) {
  table_ = table;
  // One shared promise: whichever of the acknowledgements, or the pool's
  // own end, comes last answers it, and only once.
  auto rp = std::make_shared<caf::response_promise>(make_response_promise());
  broadcasts_.erase(std::remove_if(broadcasts_.begin(), broadcasts_.end(),
                                   [](const auto& p) { return !p->pending(); }),
                    broadcasts_.end());
  broadcasts_.push_back(rp);
  auto remaining = std::make_shared<size_t>(0);
  for (auto& a : adapters_)
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
  for (auto& a : adapters_)
    if (a)
      request(a, caf::infinite, table_atom_v, table)
        .then([one_done](caf::ok_atom) { one_done(); }, [one_done](caf::error&) { one_done(); });
  return *rp;
}

} // namespace conch::actors
