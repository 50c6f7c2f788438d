#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

#include <caf/actor_addr.hpp>
#include <caf/error.hpp>

#include "conch/actors/instances/instance_interface.hpp"
#include "conch/actors/instances/worker_instance.hpp"
#include "conch/actors/messages.hpp"
#include "conch/runtime/backends/backend.hpp"

namespace conch::actors {

/// One instance of a model version, as its scheduler keeps it.
struct instance_slot {
  model_instance_actor handle;
  runtime::backends::instance_context context;
  batch_ptr running;
  /// The batch handed on while `running` runs (prefetch), or null, and who
  /// took it first (see handed_flag).
  batch_ptr next;
  handed_flag next_taken;
  /// The backend instance, once ready: what the direct lane runs.
  instance_ptr instance;
  /// The instance as a blocking_instance lends it (runs on its worker).
  std::shared_ptr<worker_instance> worker;
  size_t restarts = 0;
  bool ready = false;
  /// Parked in or leased from the direct lane.
  bool lent = false;
  /// The actor ended while its instance was leased: replace it on return.
  bool replace_on_return = false;
  caf::error down_reason;
};

/// The instances of one model version: a slot each, which of them are idle,
/// and how many are alive and lent to the direct lane. Its scheduler
/// (model_scheduler) alone uses it, on its own thread; the pool keeps the
/// books and sends nothing.
class instance_pool {
 public:
  /// Makes `n` empty slots; the scheduler fills in their contexts.
  void resize(size_t n) { slots_.resize(n); }
  void clear() noexcept;
  size_t size() const noexcept { return slots_.size(); }
  bool empty() const noexcept { return slots_.empty(); }
  instance_slot& operator[](size_t index) { return slots_[index]; }
  const instance_slot& operator[](size_t index) const { return slots_[index]; }
  auto begin() noexcept { return slots_.begin(); }
  auto end() noexcept { return slots_.end(); }
  auto begin() const noexcept { return slots_.begin(); }
  auto end() const noexcept { return slots_.end(); }
  size_t index_of(const instance_slot& slot) const noexcept {
    return static_cast<size_t>(&slot - slots_.data());
  }
  /// The slot whose instance actor is `source`; size() when none is.
  size_t find(const caf::actor_addr& source) const;
  /// Whether an instance runs a batch.
  bool any_running() const noexcept;

  // -- alive ---------------------------------------------------------------------
  /// An instance actor was spawned into `index`: alive, not ready yet.
  void started(size_t index, model_instance_actor handle);
  /// The instance actor of `index` ended: neither alive nor idle any more.
  void ended(size_t index);
  /// Instance actors alive, ready or not.
  size_t alive() const noexcept { return alive_; }

  // -- idle ----------------------------------------------------------------------
  void make_idle(size_t index) { idle_.push_back(index); }
  /// The idle instances, the most recently idle last.
  const std::vector<size_t>& idle() const noexcept { return idle_; }
  /// Takes the `k`th of idle() off the list: it runs a batch now.
  void take_idle_at(size_t k) { idle_.erase(idle_.begin() + static_cast<std::ptrdiff_t>(k)); }

  // -- lent to the direct lane ---------------------------------------------------
  /// Offers each idle instance to `lend(index, slot)`; the ones it takes
  /// (true) are lent and idle no more. True when it took any.
  template <class Lend>
  bool lend_idle(Lend&& lend);
  /// Each lent instance that `reclaim(index)` gets back from the lane is
  /// idle again. A leased one comes back later, with its credit (returned).
  template <class Reclaim>
  void reclaim_lent(Reclaim&& reclaim);
  /// The lent instance of `index` is back (its lessee's credit, or its actor
  /// ended while it was parked).
  void returned(size_t index);
  /// The lane is gone: nothing counts as lent any more.
  void forget_lent() noexcept { lent_ = 0; }
  /// Instances parked in or leased from the lane.
  size_t lent() const noexcept { return lent_; }

 private:
  std::vector<instance_slot> slots_;
  std::vector<size_t> idle_;
  size_t alive_ = 0;
  size_t lent_ = 0;
};

template <class Lend>
bool instance_pool::lend_idle(Lend&& lend) {
  auto kept = std::remove_if(idle_.begin(), idle_.end(), [&](size_t index) {
    auto& slot = slots_[index];
    if (!lend(index, slot))
      return false;
    slot.lent = true;
    ++lent_;
    return true;
  });
  if (kept == idle_.end())
    return false;
  idle_.erase(kept, idle_.end());
  return true;
}

template <class Reclaim>
void instance_pool::reclaim_lent(Reclaim&& reclaim) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (!slots_[i].lent || !reclaim(i))
      continue;
    slots_[i].lent = false;
    --lent_;
    idle_.push_back(i);
  }
}

} // namespace conch::actors
