#pragma once

#include "conch/actors/adapters/adapter_slots.hpp"
#include "conch/actors/frontends/inprocess_frontend.hpp"
#include "conch/actors/server/server_flags.hpp"
#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/submit_policy.hpp"

namespace conch::actors {

/// The one way a job enters execution, whoever submits it: server::submit
/// hands over the jobs of the in-process API and of the frontends, the
/// table_gateway those of the models themselves (BLS calls, ensemble steps).
/// It admits the job once, by who submits it (runtime::submitter), tries
/// the direct lane where the policy allows, and otherwise sends it on:
/// through an adapter, whose table the repository keeps in step with its
/// schedulers, or, for a model's own job, straight to its version's
/// scheduler, since the adapters may be gone while the request that made it
/// drains. Every job is answered, refusals included, through its callback.
/// Reads shared state only; any thread.
struct front_door {
  const server_flags& flags;
  /// The adapters; null for a door that only models use.
  const adapter_slots* slots = nullptr;
  /// The in-process API's admission; null for a door that only models use.
  inprocess_frontend* inprocess = nullptr;
  /// server_options::direct_lane.
  bool direct_lane = true;

  void enter(const runtime::job_ptr& job, const runtime::submit_policy& policy) const;
};

} // namespace conch::actors
