#pragma once

#include <atomic>
#include <mutex>
#include <vector>

#include <uv.h>

#include "conch/transports/http/completion.hpp"

namespace conch::transports::http {

/// A command from the server to one loop.
enum class loop_command : uint8_t {
  /// Nothing asked.
  none,
  /// Stop accepting; close connections once they have nothing in flight.
  drain,
  /// Close everything now.
  abort,
};

/// The many-producer, one-consumer queue into a loop: completions from
/// responders and commands from the server. Producers on any thread push and
/// wake the loop with `uv_async_send` (the one thread-safe libuv call), unless
/// the loop polls the queue (`set_polled`); the loop takes the whole batch at
/// once. After `close()` pushes are dropped, so a responder that outlives its
/// loop does no harm.
class completion_queue {
 public:
  /// The batch the loop takes in one wake-up.
  struct batch {
    std::vector<completion> completions;
    loop_command command = loop_command::none;
  };

  /// Wakes the loop through `wake`, which must stay open until `close()`.
  explicit completion_queue(uv_async_t* wake) noexcept : wake_(wake) {}

  /// Queues `c`; false when the loop is gone. Thread-safe.
  bool push(completion c);

  /// Asks the loop to run `command`; abort outranks drain. Thread-safe.
  void command(loop_command command);

  /// Takes everything queued. Runs on the loop thread.
  batch take();

  /// True when something is queued; a cheap check for a polling loop.
  /// Runs on the loop thread.
  bool ready() const noexcept { return ready_.load(std::memory_order_acquire); }

  /// Marks the calling thread, the loop's own, as running a handler: what it
  /// pushes meanwhile does not wake the loop. `end_own_pushes` says whether
  /// it pushed anything, which the loop then takes itself. Loop thread only.
  void begin_own_pushes() noexcept;
  bool end_own_pushes() noexcept;

  /// While polled, pushes do not wake the loop, which looks for them itself.
  /// Returns `ready()` as of the switch, so that a loop that stops polling
  /// misses nothing. Runs on the loop thread.
  bool set_polled(bool polled);

  /// Drops every later push. Runs on the loop thread, before `wake` closes.
  void close();

 private:
  std::mutex mutex_;
  uv_async_t* wake_;                   // guarded by mutex_ (closed_)
  std::vector<completion> pending_;    // guarded by mutex_
  loop_command command_ = loop_command::none;  // guarded by mutex_
  bool closed_ = false;                // guarded by mutex_
  bool polled_ = false;                // guarded by mutex_
  bool own_pushed_ = false;            // the loop thread's only
  std::atomic<bool> ready_{false};     // written under mutex_
};

} // namespace conch::transports::http
