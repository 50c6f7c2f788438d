#pragma once

#include <cxxabi.h>

#include <exception>
#include <string>
#include <utility>

#include <caf/event_based_actor.hpp>
#include <caf/mailbox_element.hpp>

#include "conch/actors/messages.hpp" // runtime::status as a message
#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/status.hpp"

namespace conch::actors {

/// The text of an exception that was caught: its what(), or "unknown
/// exception" for one that is not a std::exception.
std::string exception_text(const std::exception_ptr& ex);

/// Logs that `role` failed to handle a message with `what` and goes on.
void log_handler_failure(const std::string& role, const std::string& what);

/// An event-based actor, typed or not (`Base`), that outlives an exception
/// thrown by one of its handlers. CAF 0.17 ends an actor whose handler
/// throws (and answers the request that was being handled); a core actor of
/// the server must not end because one request or configuration made a
/// handler throw. Here the exception is logged, the request it came with
/// (when it is one, and no handler took charge of answering it) is answered
/// with INTERNAL naming the actor and the exception, and the actor goes on
/// with its next message. What the handler left half done is its own to
/// clean up: handlers that own a pending answer catch what they call
/// themselves (see run_guarded).
template <class Base>
class guarded : public Base {
 public:
  /// `role` names the actor in logs and errors ("the model repository").
  guarded(caf::actor_config& cfg, std::string role) : Base(cfg), role_(std::move(role)) {}

  caf::invoke_message_result consume(caf::mailbox_element& x) override {
    try {
      return Base::consume(x);
    } catch (abi::__forced_unwind&) {
      throw; // the interpreter ends this thread at exit
    } catch (...) {
      answer_failed(x, exception_text(std::current_exception()));
    }
    return caf::invoke_message_result::consumed;
  }

  /// How the actor names itself in logs and errors.
  const std::string& role() const noexcept { return role_; }

 private:
  void answer_failed(caf::mailbox_element& x, const std::string& what) {
    log_handler_failure(role_, what);
    // The promise of the message that threw, unless its handler made one
    // (which then owns the answer) or it is no request at all.
    this->current_element_ = &x;
    auto rp = this->make_response_promise();
    if (rp.pending())
      rp.deliver(runtime::internal_error(role_ + " failed to handle the request: " + what));
  }

  std::string role_;
};

/// The untyped guarded actor.
using guarded_actor = guarded<caf::event_based_actor>;

/// Runs `handle()`, which takes charge of `job`; when it throws, fails the
/// job (unless it was answered already) with INTERNAL naming `where` and
/// the exception, so that its client hears back rather than waits for ever,
/// and returns normally.
template <class Handle>
void run_guarded(const runtime::job_ptr& job, const std::string& where, Handle&& handle) {
  try {
    std::forward<Handle>(handle)();
  } catch (abi::__forced_unwind&) {
    throw; // the interpreter ends this thread at exit
  } catch (...) {
    if (job && !job->completed())
      job->fail(runtime::internal_error(where + " failed to handle the request: "
                                        + exception_text(std::current_exception())),
                runtime::failure_kind::other);
  }
}

} // namespace conch::actors
