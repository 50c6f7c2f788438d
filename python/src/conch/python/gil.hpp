#pragma once

// The GIL rules of the extension, all in one place:
//
// 1. Every wait releases the GIL (`nogil`): start, stop, load, unload, the
//    repository queries and waiting for a response.
// 2. A Conch thread (CAF scheduler, model instance) that must run Python code
//    takes the GIL with `with_gil`, which does nothing once the interpreter
//    is finalizing: CPython would terminate such a thread inside the acquire.
//    Such a thread keeps the thread state CPython made at its first entry
//    until it ends (`enter_gil`): creating and deleting one costs a model's
//    worker about a fifth of its time per batch (a 16 KiB frame stack mapped
//    and unmapped, with the TLB flush that goes to every core).
// 3. Python objects that C++ keeps (input arrays, callables, the arrays a
//    python model answered with) are held by `py_ref`; dropping one on a
//    thread without the GIL defers the decrement to a thread that holds it,
//    so Conch threads never wait for the GIL just to let go of an object.
//    The deferred decrements run on threads that hold nothing else, so that
//    the finalizers they may run cannot wait for the thread they run on:
//    a Python thread entering the extension (`infer`, a response iterator),
//    the main thread through a pending call, the delivery thread, and the
//    releaser, a thread of this file's own that takes the GIL for them once
//    the first has waited about 50 ms, or as soon as 256 wait. So what a
//    request leaves behind is bounded whether or not anything else runs.
//    Never on a CAF or model thread. After finalization began, references
//    are leaked.
// 4. A thread that released the GIL and finds the interpreter finalizing when
//    it is done never takes the GIL back: it parks (see `nogil`).

#include <cxxabi.h>

#include <pybind11/pybind11.h>

#include <cstddef>
#include <utility>

namespace conch::python {

/// True while Python can be entered: the interpreter is initialised and not
/// finalizing. Callable without the GIL.
bool interpreter_alive() noexcept;

/// Records the main thread, the one allowed to take the GIL back while the
/// interpreter finalizes. Requires the GIL; called once at import.
void init_gil_rules();

/// Runs `fn(arg)` with the GIL held: at once when the calling thread holds it,
/// otherwise later, as rule 3 says; an `urgent` call wakes the releaser at
/// once. Dropped when the interpreter is finalizing. Thread-safe.
void call_with_gil(void (*fn)(void*), void* arg, bool urgent = false) noexcept;

/// Runs the calls that `call_with_gil` deferred. Requires the GIL. For
/// threads that hold nothing else (rule 3). Not noexcept: a call that runs
/// bytecode may lose the GIL, and CPython 3.11-3.13 ends a thread that wants
/// it back while the interpreter finalizes by unwinding it (see with_gil);
/// what is left is then leaked.
void drain_deferred() noexcept(false);

/// drain_deferred, for the main thread and Python threads, which CPython
/// never ends that way.
void run_deferred() noexcept;

/// Deferred calls not run yet. Thread-safe.
size_t deferred_calls_waiting() noexcept;

/// Sleeps forever: what a thread does that the exiting interpreter would
/// otherwise end by unwinding it (rule 4).
[[noreturn]] void park_forever();

/// Releases the GIL for a scope and takes it back at the end, unless the
/// interpreter began finalizing in between and this is not the main thread:
/// such a thread parks forever instead of being terminated by CPython inside
/// the acquire. Requires the GIL on entry.
class nogil {
 public:
  nogil() noexcept : state_(PyEval_SaveThread()) {}
  // Not noexcept: CPython 3.11-3.13 may end a thread inside the acquire by
  // unwinding its stack (pthread_exit); that unwind must be able to pass.
  ~nogil() noexcept(false);

  nogil(const nogil&) = delete;
  nogil& operator=(const nogil&) = delete;

 private:
  PyThreadState* state_;
};

/// PyGILState_Ensure for with_gil. A thread CPython knew nothing of keeps
/// the thread state made for it until the thread ends (rule 2), so later
/// entries only take the GIL; the state is deleted at thread exit while the
/// interpreter lives, and left to finalization (which deletes every state)
/// otherwise.
PyGILState_STATE enter_gil() noexcept(false);

/// Runs `fn` with the GIL held from any thread; returns false without running
/// it when the interpreter is finalizing. A Python exception raised by `fn` is
/// reported as unraisable and swallowed; `fn` must not throw otherwise. The
/// one thing that leaves it is the unwind by which CPython 3.11-3.13 ends a
/// thread that wants the GIL back while the interpreter finalizes (a model
/// thread abandoned past an exit timeout, say).
template <class F>
bool with_gil(F&& fn) noexcept(false) {
  if (!interpreter_alive())
    return false;
  PyGILState_STATE state = enter_gil();
  // Nothing else may leave a Conch thread as an exception: Python errors
  // become unraisable reports (printed by sys.unraisablehook).
  try {
    std::forward<F>(fn)();
  } catch (pybind11::error_already_set& e) {
    e.discard_as_unraisable("conch: Python callback on a Conch thread");
  } catch (abi::__forced_unwind&) {
    throw;
  } catch (...) {
    if (PyErr_Occurred())
      PyErr_WriteUnraisable(nullptr);
  }
  PyGILState_Release(state);
  return true;
}

/// `with_gil` for code that may not be unwound: destructors, which run
/// inside noexcept frames (a shared_ptr's release, a std::function's
/// manager). A thread that CPython ends inside the acquire, because the
/// interpreter began finalizing after `interpreter_alive()` said it had not,
/// parks there instead of reaching std::terminate; the GIL is not held then.
template <class F>
bool with_gil_or_park(F&& fn) noexcept {
  try {
    return with_gil(std::forward<F>(fn));
  } catch (abi::__forced_unwind&) {
    park_forever();  // never returns, so the unwind is never resumed
  }
}

/// An owning reference to a Python object that may be dropped on any thread
/// (rule 3 above). Move-only. Creating one requires the GIL.
class py_ref {
 public:
  py_ref() noexcept = default;

  /// Takes a new reference to `obj` (which may be null).
  static py_ref borrow(PyObject* obj) noexcept {
    Py_XINCREF(obj);
    return py_ref{obj};
  }

  py_ref(py_ref&& other) noexcept : obj_(std::exchange(other.obj_, nullptr)) {}
  py_ref& operator=(py_ref&& other) noexcept {
    if (this != &other) {
      reset();
      obj_ = std::exchange(other.obj_, nullptr);
    }
    return *this;
  }
  py_ref(const py_ref&) = delete;
  py_ref& operator=(const py_ref&) = delete;
  ~py_ref() { reset(); }

  PyObject* get() const noexcept { return obj_; }
  explicit operator bool() const noexcept { return obj_ != nullptr; }

  /// Drops the reference (deferred when this thread lacks the GIL).
  void reset() noexcept;

 private:
  explicit py_ref(PyObject* obj) noexcept : obj_(obj) {}
  PyObject* obj_ = nullptr;
};

} // namespace conch::python
