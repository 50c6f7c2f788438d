#include "conch/actors/adapters/front_door.hpp"

#include <atomic>
#include <functional>
#include <variant>

#include <caf/send.hpp>

#include "conch/actors/adapters/adapter.hpp"
#include "conch/actors/adapters/inline_submit.hpp"
#include "conch/actors/messages.hpp"
#include "conch/runtime/batching/sequence_config.hpp"

namespace conch::actors {

namespace {

using admission = inprocess_frontend::admission;

admission open_while(const std::atomic<bool>& flag) {
  return flag.load(std::memory_order_acquire) ? admission::admitted : admission::stopping;
}

} // namespace

void front_door::enter(const runtime::job_ptr& job, const runtime::submit_policy& policy) const {
  auto admitted = admission::admitted;
  switch (policy.from) {
    case runtime::submitter::application:
      admitted = !flags.accepting.load(std::memory_order_acquire) ? admission::stopping
                 : inprocess != nullptr                            ? inprocess->admit(*job)
                                                                   : admission::admitted;
      break;
    case runtime::submitter::frontend:
      // A sequence's request is refused from the start of a stop wherever
      // it comes from: the schedulers end idle sequences as the stop
      // begins, so its sequence may be gone already.
      admitted = std::holds_alternative<std::monostate>(job->request().correlation_id)
                   ? open_while(flags.frontends_open)
                   : open_while(flags.accepting);
      break;
    case runtime::submitter::model:
      break; // its parent request was admitted, and the stop drains it
  }
  if (admitted != admission::admitted) {
    job->fail(admitted == admission::busy
                ? runtime::unavailable("the server is busy: too many requests in flight")
                : runtime::unavailable("Server is stopping"),
              runtime::failure_kind::other);
    return;
  }
  auto sent = job;  // the lane and the route may take it
  bool lane = policy.where == runtime::placement::may_run_here && direct_lane;
  bool direct = policy.from == runtime::submitter::model || slots == nullptr;
  // The version it runs on, resolved once: by its caller, who decoded it
  // against that version, or here, from the newest snapshot (the repository
  // publishes it before it hands the adapters theirs).
  model_table_ptr table;  // keeps `version` alive
  const version_entry* version = nullptr;
  if (policy.model && !direct) {
    // Only the server makes a resolved_model: the entry of its table. (A
    // model's own job always resolves here, from the newest snapshot.)
    version = &static_cast<const version_entry&>(*policy.model);
  } else if (lane || direct) {
    table = flags.table();
    auto entry = table->resolve(job->request().model_name, job->request().model_version);
    if (!entry) {
      job->fail(entry.error(), runtime::failure_kind::other);
      return;
    }
    version = *entry;
  }
  if (lane && submit_inline(*version, sent))
    return;
  if (direct) {
    if (accept_for(*version, sent))
      caf::anon_send(version->scheduler, std::move(sent));
    return;
  }
  // A sequence's requests keep their order on the way to its scheduler.
  const auto& id = job->request().correlation_id;
  const auto* adapter = std::holds_alternative<std::monostate>(id)
                          ? slots->pick()
                          : slots->pick_for(std::hash<runtime::batching::correlation_id>{}(id));
  if (adapter == nullptr || !*adapter) {
    job->fail(runtime::unavailable("Server is stopping"), runtime::failure_kind::other);
    return;
  }
  caf::anon_send(*adapter, std::move(sent));
}

} // namespace conch::actors
