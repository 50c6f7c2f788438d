#include "conch/runtime/logging/log.hpp"

namespace conch::runtime::logging {

log_message::~log_message() {
  try {
    write(level_, file_, line_, out_.str());
  } catch (...) { // NOLINT(bugprone-empty-catch): a log line must never end the program
  }
}

} // namespace conch::runtime::logging
