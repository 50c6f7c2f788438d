#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include <caf/actor_addr.hpp>

#include "conch/actors/messages.hpp"
#include "conch/runtime/inference_job.hpp"

namespace conch::actors {

/// Sends a job's responses back to its scheduler (deliver_atom), which puts
/// them in order (response_order); delivers them straight away once the
/// scheduler is gone. Holds only the scheduler's address.
class ordering_router final : public runtime::response_router {
 public:
  explicit ordering_router(caf::actor_addr scheduler) : scheduler_(std::move(scheduler)) {}
  void route(runtime::job_ptr job, runtime::inference_response&& r) override;

 private:
  caf::actor_addr scheduler_;
};

/// Answers a model's requests in the order they arrived, as
/// dynamic_batching.preserve_ordering asks (scheduler_hooks.hpp,
/// needs_ordering): each admitted job gets its place and a router that
/// sends its responses back to the scheduler, which hands them here; a
/// response goes out once every earlier request's has. The scheduler's own
/// part; used on its thread only.
class response_order {
 public:
  explicit response_order(caf::actor_addr scheduler);

  /// Gives `job` the next place and routes its responses back.
  void admit(runtime::inference_job& job);

  /// A response routed back: delivered now when its turn has come, with
  /// the ones held for it; held otherwise.
  void arrive(held_response h);

  /// The scheduler is ending: what is held goes out as it is, and a job
  /// that answers from now on is delivered at once (its router finds no
  /// scheduler).
  void release();

 private:
  std::shared_ptr<ordering_router> router_;
  std::map<uint64_t, held_response> held_;
  uint64_t next_place_ = 0;
  uint64_t next_delivery_ = 0;
};

} // namespace conch::actors
