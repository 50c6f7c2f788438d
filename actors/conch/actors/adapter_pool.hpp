#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <caf/response_promise.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_actor.hpp>

#include "conch/actors/adapter_slots.hpp"
#include "conch/actors/messages.hpp"

namespace conch::actors {

/// The state of the adapter pool.
struct adapter_pool_state {
  std::shared_ptr<adapter_slots> slots;
  std::vector<adapter_actor> adapters;
  model_table_ptr table;
  /// Table hand-outs not yet acknowledged by every adapter; answered anyway
  /// when the pool stops (CAF 0.17 does not break promises).
  std::vector<std::shared_ptr<caf::response_promise>> broadcasts;
  size_t restarts = 0;
  size_t restart_budget = 0;
  static inline const char* name = "conch.adapter_pool";
};

using adapter_pool_actor = caf::typed_actor<
  // A new model table for every adapter, acknowledged once each has it.
  caf::replies_to<table_atom, model_table_ptr>::with<caf::ok_atom>,
  // The current adapters (for tests).
  caf::replies_to<caf::get_atom>::with<std::vector<adapter_actor>>>;

/// Supervises the server adapters: spawns one per slot, restarts a crashed
/// one (within the budget) and publishes it to the frontends' slots, and
/// hands every new model table to all adapters, answering once each has
/// acknowledged it.
adapter_pool_actor::behavior_type
adapter_pool(adapter_pool_actor::stateful_pointer<adapter_pool_state> self,
             std::shared_ptr<adapter_slots> slots, size_t restart_budget);

} // namespace conch::actors
