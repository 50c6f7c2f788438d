#pragma once

// The atoms and message payloads of the actors layer, in one place. Every
// payload stays inside the process, so pointers to shared state travel as
// shared_ptr and are whitelisted rather than serialisable.

#include <memory>
#include <string>
#include <vector>

#include <caf/allowed_unsafe_message_type.hpp>
#include <atomic>

#include <caf/atom.hpp>
#include <caf/type_id.hpp>

#include "conch/runtime/backends/backend.hpp"
#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/status.hpp"

CAF_BEGIN_TYPE_ID_BLOCK(conch, caf::first_custom_type_id)
  CAF_ADD_ATOM(conch, conch::actors, execute_atom, "execute")
  CAF_ADD_ATOM(conch, conch::actors, done_atom, "done")
  CAF_ADD_ATOM(conch, conch::actors, credit_atom, "credit")
  CAF_ADD_ATOM(conch, conch::actors, stop_atom, "stop")
  CAF_ADD_ATOM(conch, conch::actors, stopped_atom, "stopped")
  CAF_ADD_ATOM(conch, conch::actors, drain_atom, "drain")
  CAF_ADD_ATOM(conch, conch::actors, cancel_atom, "cancel")
  CAF_ADD_ATOM(conch, conch::actors, abort_atom, "abort")
  CAF_ADD_ATOM(conch, conch::actors, load_atom, "load")
  CAF_ADD_ATOM(conch, conch::actors, unload_atom, "unload")
  CAF_ADD_ATOM(conch, conch::actors, poll_atom, "poll")
  CAF_ADD_ATOM(conch, conch::actors, index_atom, "index")
  CAF_ADD_ATOM(conch, conch::actors, table_atom, "table")
  CAF_ADD_ATOM(conch, conch::actors, init_atom, "init")
  CAF_ADD_ATOM(conch, conch::actors, timer_atom, "timer")
  CAF_ADD_ATOM(conch, conch::actors, deliver_atom, "deliver")
  CAF_ADD_ATOM(conch, conch::actors, frontend_atom, "frontend")
  CAF_ADD_ATOM(conch, conch::actors, start_atom, "start")
  CAF_ADD_ATOM(conch, conch::actors, crash_atom, "crash")
  CAF_ADD_ATOM(conch, conch::actors, register_atom, "register")
  CAF_ADD_ATOM(conch, conch::actors, unregister_atom, "unregister")
  CAF_ADD_ATOM(conch, conch::actors, scan_atom, "scan")
  CAF_ADD_ATOM(conch, conch::actors, restart_atom, "restart")
  CAF_ADD_ATOM(conch, conch::actors, quiesce_atom, "quiesce")
CAF_END_TYPE_ID_BLOCK(conch)

namespace conch::actors {

/// The jobs handed to an instance in one execution.
using batch_ptr = std::shared_ptr<runtime::backends::batch>;

/// Set by whichever takes a batch handed on behind another first: the
/// instance's worker as it comes up, or the scheduler or the instance giving
/// up on it. That one takes the batch off the pending count.
using handed_flag = std::shared_ptr<std::atomic<bool>>;

/// A loaded backend model, shared by the instances of one version.
using backend_model_ptr = std::shared_ptr<runtime::backends::backend_model>;

/// A ready backend instance, as its actor reports it to the scheduler.
using instance_ptr = std::shared_ptr<runtime::backends::backend_instance>;

/// A response held back for ordered delivery.
struct held_response {
  runtime::job_ptr job;
  std::shared_ptr<runtime::inference_response> response;
};

} // namespace conch::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::runtime::job_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::batch_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::handed_flag)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::backend_model_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::instance_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::actors::held_response)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(conch::runtime::status)
