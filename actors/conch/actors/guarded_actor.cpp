#include "conch/actors/guarded_actor.hpp"

#include "conch/actors/messages.hpp" // runtime::status as a message
#include "conch/runtime/logging/log.hpp"
#include "conch/runtime/status.hpp"

namespace conch::actors {

std::string exception_text(const std::exception_ptr& ex) {
  try {
    if (ex)
      std::rethrow_exception(ex);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
  }
  return "unknown exception";
}

guarded_actor::guarded_actor(caf::actor_config& cfg, std::string role)
  : caf::event_based_actor(cfg), role_(std::move(role)) {}

caf::invoke_message_result guarded_actor::consume(caf::mailbox_element& x) {
  try {
    return caf::event_based_actor::consume(x);
  } catch (abi::__forced_unwind&) {
    throw; // the interpreter ends this thread at exit
  } catch (...) {
    answer_failed(x, exception_text(std::current_exception()));
  }
  return caf::invoke_message_result::consumed;
}

void guarded_actor::answer_failed(caf::mailbox_element& x, const std::string& what) {
  CONCH_LOG_ERROR << role_ << " failed to handle a message and goes on: " << what;
  // The promise of the message that threw, unless its handler made one
  // (which then owns the answer) or it is no request at all.
  current_element_ = &x;
  auto rp = make_response_promise();
  if (rp.pending())
    rp.deliver(runtime::internal_error(role_ + " failed to handle the request: " + what));
}

} // namespace conch::actors
