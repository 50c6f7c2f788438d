#pragma once

#include <cstddef>
#include <cstdint>

#include <caf/typed_actor.hpp>

#include "conch/actors/messages.hpp"
#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/status.hpp"

namespace conch::actors {

/// What a model version's scheduler (model_scheduler) takes.
using scheduler_actor = caf::typed_actor<
  // Load the backend and start the instances; answered when they are ready.
  caf::replies_to<init_atom>::with<runtime::status>,
  // The backend model, loaded on the loader's worker.
  caf::reacts_to<init_atom, backend_model_ptr, runtime::status>,
  // A job to queue (an adapter's, or a model's own).
  caf::reacts_to<runtime::job_ptr>,
  // Instance `index` finished its batch (its credit).
  caf::reacts_to<done_atom, size_t>,
  // A lent instance came back from the direct lane (crashed or not).
  caf::reacts_to<credit_atom, size_t, bool>,
  // The scheduler's own timer: queue delays and timeouts.
  caf::reacts_to<timer_atom, uint64_t>,
  // A queued job was cancelled.
  caf::reacts_to<cancel_atom>,
  // A response to put in arrival order (response_order).
  caf::reacts_to<deliver_atom, held_response>,
  // Drain: finish what is queued and running, then end.
  caf::replies_to<stop_atom>::with<runtime::status>,
  // No more requests are coming: a drain follows.
  caf::reacts_to<quiesce_atom>,
  // Give up on everything; answers whether model code was still running.
  caf::replies_to<abort_atom>::with<bool>,
  // A job a drain waits for completed (late_answers).
  caf::reacts_to<drain_atom>,
  // The model's finalizer returned.
  caf::reacts_to<stopped_atom>>;

} // namespace conch::actors
