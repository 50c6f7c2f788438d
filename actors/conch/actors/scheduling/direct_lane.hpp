#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

#include "conch/actors/instances/worker_instance.hpp"
#include "conch/runtime/backends/backend.hpp"

namespace conch::actors {

/// Lends a model's idle instances to the threads that submit requests, so a
/// small request to a model that does not batch runs where it arrived
/// without the trip through the adapter, scheduler and instance actors and
/// back. An instance of a model that may block is lent with its worker
/// (worker_instance): the lessee posts the request there instead of running
/// it, so model code never runs on a submitting thread.
///
/// The scheduler stays the owner of every instance. It parks an idle instance
/// here only while its queue is empty, and asks for the parked ones back
/// (`want`) as soon as work queues up or the model drains. A submitting
/// thread leases a parked instance with one compare-and-swap, runs one
/// request on it and returns it; it never waits: with nothing parked the
/// request takes the actor path. Returning an instance while the scheduler
/// wants it hands it back to the scheduler (`release` says so, and the
/// caller tells the scheduler), so a drain waits for leases as it waits for
/// running batches.
///
/// Every slot is owned by the scheduler, parked, or leased:
///   owned  -> parked   park (scheduler)
///   parked -> owned    reclaim (scheduler), or release while wanted (lessee)
///   parked -> leased   try_lease (any thread)
///   leased -> parked   release (lessee)
///   leased -> owned    release of a crashed instance (lessee)
class direct_lane {
 public:
  /// What running a parked instance takes; set by the scheduler while the
  /// slot is owned, read by the lessee while it holds the lease.
  struct binding {
    /// Keeps the model alive while one of its instances is leased.
    std::shared_ptr<runtime::backends::backend_model> model;
    std::shared_ptr<runtime::backends::backend_instance> instance;
    runtime::backends::instance_context context;
    /// Set for an instance that runs on a worker of its own: the request
    /// is posted there, never run on the lessee's thread.
    std::shared_ptr<worker_instance> worker;
  };

  /// A lane for `slots` instances, all owned by the scheduler and wanted.
  explicit direct_lane(size_t slots);

  // -- the scheduler (its own thread) ----------------------------------------

  /// Hands owned instance `index` to the lane with what running it takes.
  void park(size_t index, binding b);

  /// Takes instance `index` back if it is parked. False when it is leased:
  /// then its lessee hands it back on release, because the scheduler wants it.
  bool reclaim(size_t index);

  /// While wanted, nothing new is leased, and a lessee hands its instance
  /// back to the scheduler instead of parking it again.
  void want(bool wanted) noexcept;

  /// Forgets the binding of owned instance `index`.
  void unbind(size_t index);

  size_t size() const noexcept { return size_; }

  // -- submitting threads ----------------------------------------------------

  /// Leases a parked instance; nothing while the scheduler wants its
  /// instances or none is parked. Never waits.
  std::optional<size_t> try_lease() noexcept;

  /// What leased instance `index` runs with; valid until `release`.
  const binding& bound(size_t index) const noexcept { return bindings_[index]; }

  /// Ends the lease of `index`. True when the instance went back to the
  /// scheduler, which the caller must then tell (a credit): always for a
  /// crashed instance, which the scheduler replaces, and otherwise when the
  /// scheduler wants its instances.
  bool release(size_t index, bool crashed) noexcept;

 private:
  enum : uint8_t { owned, parked, leased };

  size_t size_;
  std::unique_ptr<std::atomic<uint8_t>[]> states_;
  std::unique_ptr<binding[]> bindings_;
  std::atomic<bool> wanted_{true};
  std::atomic<size_t> hint_{0};
};

} // namespace conch::actors
