#pragma once

// The log statements of Conch's C++ code:
//
//   CONCH_LOG_INFO << "loaded '" << name << "' version " << v;
//   CONCH_LOG_VERBOSE(1) << "request " << id;
//
// A statement whose level is off costs one relaxed atomic load: its stream
// expressions are not evaluated.

#include <sstream>

#include "conch/runtime/logging/logger.hpp"

namespace conch::runtime::logging {

/// One line being composed; written by the destructor. Used by the
/// CONCH_LOG_* macros, which capture the file and line.
class log_message {
 public:
  log_message(log_level level, const char* file, int line) noexcept
    : level_(level), file_(file), line_(line) {}

  ~log_message();

  log_message(const log_message&) = delete;
  log_message& operator=(const log_message&) = delete;

  /// The stream the message is written to.
  std::ostringstream& stream() noexcept { return out_; }

 private:
  log_level level_;
  const char* file_;
  int line_;
  std::ostringstream out_;
};

/// Turns a log statement's stream into void, so that both branches of the
/// CONCH_LOG_* macros' conditional have one type. `&` binds more loosely
/// than `<<`, so the whole `<<` chain runs first.
struct log_voidify {
  void operator&(std::ostream&) const noexcept {}
};

} // namespace conch::runtime::logging

/// Starts a log statement at `level` (a log_level) unless that level is off.
/// An expression, not an `if`, so that it nests in an unbraced if/else.
#define CONCH_LOG_AT(level)                                                    \
  !::conch::runtime::logging::is_on(level)                                     \
    ? (void) 0                                                                 \
    : ::conch::runtime::logging::log_voidify{}                                 \
        & ::conch::runtime::logging::log_message((level), __FILE__, __LINE__).stream()

/// An informational log statement.
#define CONCH_LOG_INFO CONCH_LOG_AT(::conch::runtime::logging::log_level::info)

/// A warning log statement.
#define CONCH_LOG_WARN CONCH_LOG_AT(::conch::runtime::logging::log_level::warn)

/// An error log statement.
#define CONCH_LOG_ERROR CONCH_LOG_AT(::conch::runtime::logging::log_level::error)

/// A verbose log statement of verbosity `n` (1: per request events).
#define CONCH_LOG_VERBOSE(n)                                                   \
  !::conch::runtime::logging::verbose_on(n)                                    \
    ? (void) 0                                                                 \
    : ::conch::runtime::logging::log_voidify{}                                 \
        & ::conch::runtime::logging::log_message(                              \
            ::conch::runtime::logging::log_level::verbose, __FILE__, __LINE__) \
            .stream()
