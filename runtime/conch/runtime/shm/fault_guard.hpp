#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "conch/runtime/result.hpp"

namespace conch::runtime::shm {

/// Keeps a client's shared-memory object from ending the process.
///
/// A mapping of a POSIX shared-memory object faults (SIGBUS) when a byte
/// past the object's current end is touched, and the client that created
/// the object can shrink it with ftruncate at any time, also while a
/// backend reads an input from it or writes an output into it. Regions stay
/// zero-copy: instead of checking each access, every system region's
/// mapping is entered here, and a process-wide SIGBUS handler that finds the
/// faulting address inside one replaces the mapping from the faulting page
/// to its end with private zero pages (so the access that faulted, and any
/// after it, completes) and marks the span torn. Whoever used the span
/// checks `torn()` once the backend is done with it and answers the request
/// with an error; a torn region is refused from then on. A fault anywhere
/// else goes to the handler that was there before (Python's faulthandler,
/// or the default action). A handler installed after this one runs first
/// until a request next uses a region (ensure_installed); Python's
/// faulthandler, for one, ends the process on a fault before this handler
/// sees it.
///
/// The handler is async-signal-safe: it reads a fixed table of atomics and
/// calls mmap(2). At most `capacity` spans are guarded at once.
class guarded_span {
 public:
  /// The spans that can be guarded at once, and so the system regions a
  /// process can have registered at once.
  static constexpr size_t capacity = 4096;

  // -- constructors ----------------------------------------------------------

  /// Guards [base, base + size) (a mapping of whole pages) and installs the
  /// handler if it is not installed. RESOURCE_EXHAUSTED (as UNAVAILABLE)
  /// when `capacity` spans are guarded already.
  static runtime::result<guarded_span> guard(void* base, size_t size);

  guarded_span(guarded_span&& other) noexcept : slot_(other.slot_) { other.slot_ = npos; }
  guarded_span& operator=(guarded_span&& other) noexcept;
  guarded_span(const guarded_span&) = delete;
  guarded_span& operator=(const guarded_span&) = delete;

  /// Stops guarding the span, as release() does.
  ~guarded_span() { release(); }

  // -- changes ---------------------------------------------------------------

  /// Stops guarding the span; call it before the span is unmapped. Idempotent.
  void release() noexcept;

  // -- properties ------------------------------------------------------------

  /// True once an access past the object's end was caught in the span: some
  /// of its bytes no longer reach the object.
  bool torn() const noexcept;

  /// The spans guarded now, process-wide.
  static size_t guarded_count() noexcept;

  /// Puts the handler back in front when some other handler took SIGBUS
  /// after it (faulthandler.enable() in a model, say), keeping that one as
  /// the handler foreign faults go to. One sigaction query when nothing
  /// changed; called as each request starts using a region.
  static void ensure_installed();

 private:
  static constexpr size_t npos = static_cast<size_t>(-1);

  explicit guarded_span(size_t slot) noexcept : slot_(slot) {}

  size_t slot_;
};

} // namespace conch::runtime::shm
