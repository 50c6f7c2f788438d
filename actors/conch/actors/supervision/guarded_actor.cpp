#include "conch/actors/supervision/guarded_actor.hpp"

#include "conch/runtime/logging/log.hpp"

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

void log_handler_failure(const std::string& role, const std::string& what) {
  CONCH_LOG_ERROR << role << " failed to handle a message and goes on: " << what;
}

} // namespace conch::actors
