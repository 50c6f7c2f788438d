#include "conch/services/worker_thread.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "conch/runtime/logging/log.hpp"
#include "conch/runtime/spin.hpp"
#include "conch/runtime/thread_role.hpp"
#include "conch/runtime/statistics/abandoned_threads.hpp"

namespace conch::services {

using runtime::statistics::abandoned_threads;

// Shared by the owner and the thread, so that an abandoned thread keeps what
// it needs after its owner has gone.
struct worker_thread::state {
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::function<void()>> queue;
  std::function<void()> on_exit;
  /// Set with the lock held whenever the thread has something new to look
  /// at (a task, a close); read without it while the thread spins.
  std::atomic<bool> attention{false};
  /// When a task was last posted into an empty queue (steady clock), set
  /// with the lock held: where the thread's idle gaps end.
  std::chrono::steady_clock::time_point posted_at{};
  bool running = false;
  bool closed = false;
  bool abandoned = false;
  bool exited = false;
};

worker_thread::worker_thread(std::string what)
  : what_(std::move(what)), state_(std::make_shared<state>()), thread_(run, state_) {}

worker_thread::~worker_thread() {
  if (!thread_.joinable())
    return; // given up on already
  bool closed = false;
  {
    std::lock_guard<std::mutex> guard{state_->mutex};
    closed = state_->closed && !state_->exited;
  }
  if (closed) {
    // An orderly close: what is queued still runs, on its own time.
    thread_.detach();
    return;
  }
  abandon();
  // Still joinable only when the thread had left its loop. It is not waited
  // for even then: what it runs at its very end (thread-local destructors,
  // such as the Python thread state it gives back under the GIL) must not
  // hold the thread that lets go of it, which may be an actor's.
  if (thread_.joinable())
    thread_.detach();
}

bool worker_thread::post(std::function<void()> task) {
  auto now = std::chrono::steady_clock::now();  // read outside the lock
  {
    std::lock_guard<std::mutex> guard{state_->mutex};
    if (state_->closed || state_->abandoned)
      return false;
    // The first post into an empty queue ends an idle gap; later ones, made
    // while the thread wakes up, do not move that end.
    if (state_->queue.empty())
      state_->posted_at = now;
    state_->queue.push_back(std::move(task));
    state_->attention.store(true, std::memory_order_release);
  }
  state_->wake.notify_one();
  return true;
}

void worker_thread::close(std::function<void()> on_exit) {
  {
    std::lock_guard<std::mutex> guard{state_->mutex};
    if (state_->closed || state_->abandoned)
      return;
    state_->closed = true;
    state_->on_exit = std::move(on_exit);
    state_->attention.store(true, std::memory_order_release);
  }
  state_->wake.notify_one();
}

void worker_thread::abandon() {
  bool stuck = false;
  {
    std::lock_guard<std::mutex> guard{state_->mutex};
    if (state_->abandoned || state_->exited || !thread_.joinable())
      return;
    stuck = state_->running || !state_->queue.empty();
    state_->abandoned = stuck;
    state_->closed = true;
    state_->on_exit = nullptr;
    state_->attention.store(true, std::memory_order_release);
  }
  state_->wake.notify_one();
  thread_.detach();
  if (stuck) {
    abandoned_threads::note_abandoned();
    CONCH_LOG_ERROR << "abandoned the thread of " << what_
                    << ": its model code had not returned in time; it is not waited for";
  }
}

bool worker_thread::busy() const {
  std::lock_guard<std::mutex> guard{state_->mutex};
  return state_->running || !state_->queue.empty();
}

namespace {

// How long an idle worker spins for its next task before it sleeps, when its
// recent spins paid off: a client that sends its next request right after
// the last answer (an in-process loop, an HTTP client on the same machine)
// then costs no wake-up of this thread. Between its checks the spin offers
// its core to other runnable threads (sched_yield), so a thread waiting for
// that core runs first.
constexpr std::chrono::microseconds idle_spin{100};

// The spin is tried only while the worker's recent idle gaps (from the end
// of a task to the posting of the next) average no more than half of it: a
// spin pays when it catches the gap's end, and gaps near the spin's length
// are missed as often as caught, the spin wasted and the wake-up paid on
// top. Measured with the python model at one connection on a 2-core VM
// (bench/python/cpu_per_request.py): HTTP's gaps average about 32 us, and
// spinning through them costs less than sleeping; gRPC's round trip leaves
// gaps of about 95 us, and sleeping through them at once takes 14% less CPU
// per request than spinning first, and serves 10% more requests.
constexpr std::chrono::microseconds spin_worth{50};

} // namespace

void worker_thread::run(std::shared_ptr<state> s) {
  runtime::this_thread_runs_models = true;
  runtime::spin_record spins;
  // A gap longer than the spin costs what any such gap does (the spin
  // wasted, the wake-up paid): it counts as one spin's length.
  runtime::gap_mean gaps{idle_spin};
  std::unique_lock<std::mutex> lock{s->mutex};
  bool ran = false;
  for (;;) {
    bool idle = ran && s->queue.empty() && !s->closed;
    auto idle_since = idle ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    if (idle && gaps.value() <= spin_worth) {
      lock.unlock();
      runtime::spin_if_it_pays(
        spins, [&] { return s->attention.load(std::memory_order_acquire); }, idle_spin,
        runtime::spin_yield::yes);
      lock.lock();
    }
    s->wake.wait(lock, [&] { return !s->queue.empty() || s->closed; });
    if (idle)
      gaps.add(s->posted_at - idle_since);
    s->attention.store(false, std::memory_order_relaxed);
    if (s->abandoned || s->queue.empty())
      break;
    auto task = std::move(s->queue.front());
    s->queue.pop_front();
    s->running = true;
    lock.unlock();
    // A task handles its own errors. A forced unwind (the interpreter ending
    // a thread at exit) passes through untouched.
    task();
    task = nullptr;
    lock.lock();
    s->running = false;
    ran = true;
  }
  if (s->abandoned) {
    // Whatever was queued is dropped here, on this thread, unlocked.
    auto dropped = std::move(s->queue);
    lock.unlock();
    dropped.clear();
    abandoned_threads::note_finished();
    return;
  }
  auto on_exit = std::move(s->on_exit);
  s->exited = true;
  lock.unlock();
  if (on_exit)
    on_exit();
}

} // namespace conch::services
