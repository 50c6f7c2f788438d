#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <caf/response_promise.hpp>
#include <caf/typed_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "conch/actors/adapters/adapter_slots.hpp"
#include "conch/actors/messages.hpp"

namespace conch::actors {

using adapter_pool_actor = caf::typed_actor<
  // A new model table for every adapter, acknowledged once each has it.
  caf::replies_to<table_atom, model_table_ptr>::with<caf::ok_atom>,
  // The current adapters (for tests).
  caf::replies_to<caf::get_atom>::with<std::vector<adapter_actor>>>;

/// Supervises the server adapters: spawns one per slot, restarts a crashed
/// one (within the budget) and publishes it to the frontends' slots, and
/// hands every new model table to all adapters, answering once each has
/// acknowledged it.
class adapter_pool : public adapter_pool_actor::base {
 public:
  adapter_pool(caf::actor_config& cfg, std::shared_ptr<adapter_slots> slots,
               size_t restart_budget);

  behavior_type make_behavior() override;
  void on_exit() override;

 private:
  void start_adapter(size_t slot);
  void on_adapter_down(const caf::down_msg& msg);
  void stop(const caf::error& reason);
  caf::result<caf::ok_atom> broadcast(model_table_ptr table);

  std::shared_ptr<adapter_slots> slots_;
  std::vector<adapter_actor> adapters_;
  model_table_ptr table_;
  /// Table hand-outs not yet acknowledged by every adapter; answered anyway
  /// when the pool stops (CAF 0.17 does not break promises).
  std::vector<std::shared_ptr<caf::response_promise>> broadcasts_;
  size_t restarts_ = 0;
  size_t restart_budget_ = 0;
};

} // namespace conch::actors
