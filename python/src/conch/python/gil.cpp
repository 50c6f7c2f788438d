#include "conch/python/gil.hpp"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <pythread.h>

namespace conch::python {

namespace {

struct deferred_call {
  void (*fn)(void*);
  void* arg;
};

// Leaked on purpose: deferred calls may be queued by Conch threads while the
// process exits, after static destructors would have run.
struct deferred_queue {
  std::mutex mu;
  std::vector<deferred_call> calls;
  std::atomic<bool> nonempty{false};
  std::atomic<bool> pending_call_armed{false};
};

deferred_queue& queue() {
  static auto* q = new deferred_queue;
  return *q;
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

} // namespace

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

void call_with_gil(void (*fn)(void*), void* arg) noexcept {
  if (!interpreter_alive())
    return;
  if (PyGILState_Check()) {
    fn(arg);
    return;
  }
  auto& q = queue();
  {
    std::lock_guard<std::mutex> guard{q.mu};
    q.calls.push_back({fn, arg});
    q.nonempty.store(true, std::memory_order_release);
  }
  // A pending call runs on the main thread at its next bytecode boundary, so
  // deferred releases happen even when no thread enters the extension again.
  if (!q.pending_call_armed.exchange(true) && Py_AddPendingCall(run_deferred_pending, nullptr) != 0)
    q.pending_call_armed.store(false);
}

void run_deferred() noexcept {
  auto& q = queue();
  if (!q.nonempty.load(std::memory_order_acquire))
    return;
  std::vector<deferred_call> calls;
  {
    std::lock_guard<std::mutex> guard{q.mu};
    calls.swap(q.calls);
    q.nonempty.store(false, std::memory_order_release);
  }
  for (const auto& c : calls)
    c.fn(c.arg);
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
