#pragma once

// Asking an actor of the tree from outside the actor system: without waiting
// (a short-lived actor sends one request and hands the answer to a callback),
// or waiting for a status. The destination may be typed; a typed one checks
// the request against its interface at compile time.

#include <memory>
#include <utility>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/logger.hpp>
#include <caf/scoped_actor.hpp>

#include "conch/runtime/status.hpp"

namespace conch::actors {

/// Declared before a scoped_actor in every blocking public method: when the
/// method returns, it makes CAF's logger forget the actor system on the
/// calling thread. CAF 0.17 otherwise keeps a thread-local reference there,
/// and destroying the actor system from another thread would wait for ever.
struct caller_thread_guard {
  caller_thread_guard() = default;
  caller_thread_guard(const caller_thread_guard&) = delete;
  caller_thread_guard& operator=(const caller_thread_guard&) = delete;
  ~caller_thread_guard() { caf::logger::set_current_actor_system(nullptr); }
};

/// Sends (xs...) to `dest` from a fresh actor and passes the answer, or an
/// UNAVAILABLE status for an actor that is gone, to `done`. The actor has no
/// behavior of its own, so it ends once the answer is handled. No thread
/// waits; `done` runs on a thread of the actor system.
template <class Answer, class Handle, class Callback, class... Ts>
void ask_async(caf::actor_system& sys, const Handle& dest, Callback done, Ts... xs) {
  auto shared = std::make_shared<Callback>(std::move(done));
  if (!dest) {
    (*shared)(runtime::unavailable("server is not running"));
    return;
  }
  // Spawning notes the actor system on the calling thread for CAF's logger;
  // forget it again, as the blocking methods do.
  caller_thread_guard guard;
  sys.spawn([dest, shared, xs...](caf::event_based_actor* self) {
    self->request(dest, caf::infinite, xs...)
      .then([shared](Answer& answer) { (*shared)(std::move(answer)); },
            [shared](caf::error& err) {
              (*shared)(runtime::unavailable("server is not running: " + to_string(err)));
            });
  });
}

/// Sends (xs...) to `dest` and waits for the status it answers; UNAVAILABLE
/// for an actor that is gone. For the server's blocking public methods.
template <class Handle, class... Ts>
runtime::status ask_status(caf::actor_system& sys, const Handle& dest, Ts&&... xs) {
  if (!dest)
    return runtime::unavailable("server is not running");
  caller_thread_guard guard;
  caf::scoped_actor self{sys};
  runtime::status out;
  self->request(dest, caf::infinite, std::forward<Ts>(xs)...)
    .receive([&](runtime::status& st) { out = std::move(st); },
             [&](caf::error& err) {
               out = runtime::unavailable("server is not running: " + to_string(err));
             });
  return out;
}

} // namespace conch::actors
