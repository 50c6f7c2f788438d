#include "conch/python/gil.hpp"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include <pythread.h>

namespace conch::python {

namespace {

using namespace std::chrono_literals;

struct deferred_call {
  void (*fn)(void*);
  void* arg;
};

// The calls that threads without the GIL left for one that has it, and the
// releaser thread that runs them when nobody else does. Leaked on purpose:
// deferred calls may be queued by Conch threads while the process exits,
// after static destructors would have run.
struct deferred_queue {
  std::mutex mu;
  std::vector<deferred_call> calls;
  std::atomic<bool> nonempty{false};
  std::atomic<bool> pending_call_armed{false};
  // The releaser: woken once per sweep (`sweep_armed`), or at once for an
  // urgent call or a long queue (`urgent`).
  std::condition_variable wake;
  bool sweep_armed = false; // guarded by mu
  bool urgent = false;      // guarded by mu
  bool releaser_started = false;
};

// Queued calls past which the releaser runs them at once, rather than at the
// end of its sweep: a bound on what a burst keeps alive.
constexpr size_t urgent_length = 256;
// How long a deferred release waits for a thread that takes the GIL anyway
// (the delivery thread, a caller of the API, the main thread) before the
// releaser takes it for that alone.
constexpr auto sweep_interval = 50ms;

std::atomic<deferred_queue*> current_queue{nullptr};

void start_afresh() noexcept { current_queue.store(new deferred_queue); }

std::once_flag set_up;

deferred_queue& queue() {
  std::call_once(set_up, [] {
    start_afresh();
    // A forked child has no releaser, and its parent's mutex may have been
    // held at the fork: it starts with a queue of its own (the parent's
    // calls are leaked).
    pthread_atfork(nullptr, nullptr, [] { start_afresh(); });
  });
  return *current_queue.load();
}

std::atomic<unsigned long> main_thread_id{0};

bool is_finalizing() noexcept {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing() != 0;
#else
  return _Py_IsFinalizing() != 0;
#endif
}

int run_deferred_pending(void*) {
  queue().pending_call_armed.store(false);
  run_deferred();
  return 0;
}

void decref(void* obj) { Py_DECREF(static_cast<PyObject*>(obj)); }

// The releaser's life: wait to be armed, give the other threads one sweep
// interval to run the calls as they take the GIL, then run what is left.
void release_forever(deferred_queue& q) {
  std::unique_lock<std::mutex> lock{q.mu};
  for (;;) {
    q.wake.wait(lock, [&] { return q.sweep_armed || q.urgent; });
    if (!q.urgent)
      q.wake.wait_for(lock, sweep_interval, [&] { return q.urgent; });
    q.sweep_armed = false;
    q.urgent = false;
    bool left = !q.calls.empty();
    lock.unlock();
    if (left)
      with_gil_or_park([] { drain_deferred(); });
    lock.lock();
  }
}

// Arms the releaser; requires q.mu. Returns whether it must be notified.
bool arm_releaser(deferred_queue& q, bool urgent) {
  if (!q.releaser_started) {
    try {
      std::thread{[&q] { release_forever(q); }}.detach();
    } catch (const std::system_error&) {
      return false; // the other threads that take the GIL still run the calls
    }
    q.releaser_started = true;
  }
  bool notify = (urgent && !q.urgent) || !q.sweep_armed;
  q.urgent = q.urgent || urgent;
  q.sweep_armed = true;
  return notify;
}

// Keeps a thread's state alive between its entries (gil.hpp, rule 2) by one
// gilstate count of its own, given back when the thread ends: only if that
// state is still the thread's (an interpreter finalized and initialized
// again in between deleted it with every other one).
struct kept_thread_state {
  PyThreadState* kept = nullptr;

  ~kept_thread_state() {
    if (kept == nullptr || !interpreter_alive() || PyGILState_GetThisThreadState() != kept)
      return; // finalization deletes the state with every other one
    try {
      (void) PyGILState_Ensure();               // count 2, the GIL taken
      PyGILState_Release(PyGILState_LOCKED);    // count 1, the GIL kept
      PyGILState_Release(PyGILState_UNLOCKED);  // count 0: deleted, the GIL freed
    } catch (abi::__forced_unwind&) {
      park_forever(); // the interpreter began finalizing after the check
    }
  }
};

thread_local kept_thread_state this_thread_state;

} // namespace

PyGILState_STATE enter_gil() noexcept(false) {
  bool fresh = PyGILState_GetThisThreadState() == nullptr;
  PyGILState_STATE state = PyGILState_Ensure();
  if (fresh) {
    (void) PyGILState_Ensure(); // the count this thread keeps until it ends
    this_thread_state.kept = PyGILState_GetThisThreadState();
  }
  return state;
}

void park_forever() {
  // The process is exiting; this thread must neither touch Python nor end by
  // unwinding through frames that do not expect it.
  for (;;)
    std::this_thread::sleep_for(std::chrono::hours{1});
}

bool interpreter_alive() noexcept { return Py_IsInitialized() != 0 && !is_finalizing(); }

void init_gil_rules() {
  pybind11::object main = pybind11::module_::import("threading").attr("main_thread")();
  main_thread_id.store(main.attr("ident").cast<unsigned long>());
}

void call_with_gil(void (*fn)(void*), void* arg, bool urgent) noexcept {
  if (!interpreter_alive())
    return;
  if (PyGILState_Check()) {
    fn(arg);
    return;
  }
  auto& q = queue();
  bool notify = false;
  {
    std::lock_guard<std::mutex> guard{q.mu};
    q.calls.push_back({fn, arg});
    q.nonempty.store(true, std::memory_order_release);
    // One wake-up of the releaser per sweep, however many calls queue.
    if (!q.sweep_armed || urgent || q.calls.size() == urgent_length)
      notify = arm_releaser(q, urgent || q.calls.size() >= urgent_length);
  }
  if (notify)
    q.wake.notify_one();
  // A pending call runs on the main thread at its next bytecode boundary,
  // often sooner than the releaser.
  if (!q.pending_call_armed.exchange(true) && Py_AddPendingCall(run_deferred_pending, nullptr) != 0)
    q.pending_call_armed.store(false);
}

void drain_deferred() noexcept(false) {
  auto& q = queue();
  if (!q.nonempty.load(std::memory_order_acquire))
    return;
  std::vector<deferred_call> calls;
  {
    std::lock_guard<std::mutex> guard{q.mu};
    calls.swap(q.calls);
    q.nonempty.store(false, std::memory_order_release);
  }
  for (const auto& c : calls) {
    c.fn(c.arg);
    // A release that left an error set (a foreign DLPack deleter, say) must
    // not hand it to the next call.
    if (PyErr_Occurred())
      PyErr_WriteUnraisable(nullptr);
  }
}

void run_deferred() noexcept { drain_deferred(); }

size_t deferred_calls_waiting() noexcept {
  auto& q = queue();
  std::lock_guard<std::mutex> guard{q.mu};
  return q.calls.size();
}

nogil::~nogil() noexcept(false) {
  if (!interpreter_alive() && PyThread_get_thread_ident() != main_thread_id.load())
    park_forever();
  PyEval_RestoreThread(state_);
}

void py_ref::reset() noexcept {
  if (obj_ != nullptr)
    call_with_gil(decref, std::exchange(obj_, nullptr));
}

} // namespace conch::python
