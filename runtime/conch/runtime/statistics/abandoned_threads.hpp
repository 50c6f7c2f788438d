#pragma once

#include <cstdint>

namespace conch::runtime::statistics {

/// The process-wide account of threads that ran model code and were
/// abandoned: past an exit timeout their code had not returned, so nothing
/// joins them and nothing waits for them any more. They appear in every
/// server's metrics as `conch_abandoned_threads` (those still running) and
/// `conch_abandoned_threads_total` (all so far). Thread-safe.
class abandoned_threads {
 public:
  /// Counts one thread abandoned (its owner logs which one).
  static void note_abandoned() noexcept;

  /// An abandoned thread's code returned at last and the thread ended.
  static void note_finished() noexcept;

  /// Abandoned threads still running.
  static int64_t running() noexcept;

  /// Threads abandoned since the process started.
  static int64_t total() noexcept;
};

} // namespace conch::runtime::statistics
