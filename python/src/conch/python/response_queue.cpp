#include "conch/python/response_queue.hpp"

#include <algorithm>

#include <pybind11/pybind11.h>

#include "conch/python/py_delivery.hpp"
#include "conch/runtime/spin.hpp"

namespace conch::python {

namespace py = pybind11;

void response_queue::push(runtime::inference_response&& r) noexcept {
  // Dropped when this call returns: whoever delivers a response holds the
  // job too, so this never destroys the job inside its own delivery.
  std::optional<actors::request_handle> done;
  {
    std::lock_guard<std::mutex> guard{mu_};
    final_ = final_ || r.final;
    if (final_)
      done.swap(handle_);
    if (!push_mode_) {
      items_.push_back(std::move(r));
      has_items_.store(true, std::memory_order_release);
    }
  }
  if (!push_mode_) {
    cv_.notify_one();
    return;
  }
  // The callable runs on the delivery thread; this thread never takes the GIL.
  try {
    py_delivery::post(shared_from_this(), std::move(r));
  } catch (...) {
    // Out of memory: the response is lost, as Python could not take it.
  }
}

void response_queue::deliver(runtime::inference_response&& r) {
  if (!on_response_)
    return;
  auto fn = py::reinterpret_borrow<py::object>(on_response_.get());
  // The callable usually refers back to the Python object that holds this
  // queue; letting go of it with the final response breaks that cycle,
  // which Python's collector cannot see through C++.
  if (r.final)
    on_response_ = py_ref{};
  try {
    fn(py::cast(std::move(r)));
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("conch: a response callback");
  }
}

void response_queue::set_handle(actors::request_handle handle) {
  std::lock_guard<std::mutex> guard{mu_};
  if (!final_)
    handle_ = std::move(handle);
}

void response_queue::cancel() {
  std::optional<actors::request_handle> h;
  {
    std::lock_guard<std::mutex> guard{mu_};
    h = handle_;
  }
  if (h)
    h->cancel();
}

namespace {

// One per thread that waits for responses (runtime/spin.hpp).
thread_local runtime::spin_record spins;

} // namespace

void response_queue::spin_for_response() noexcept {
  if (push_mode_)
    return;
  auto arrived = [this] { return has_items_.load(std::memory_order_acquire); };
  if (!arrived())
    runtime::spin_if_it_pays(spins, arrived, spin_budget);
}

response_queue::wait_result response_queue::pop(std::chrono::nanoseconds timeout,
                                                std::optional<runtime::inference_response>& out) {
  auto arrived = [this] { return has_items_.load(std::memory_order_acquire); };
  if (!arrived())
    runtime::spin_if_it_pays(spins, arrived, std::min<std::chrono::nanoseconds>(spin_budget, timeout));
  std::unique_lock<std::mutex> lock{mu_};
  if (waiting_)
    return wait_result::busy;
  waiting_ = true;
  bool ready = cv_.wait_for(lock, timeout, [this] { return !items_.empty(); });
  waiting_ = false;
  if (!ready)
    return wait_result::timeout;
  out.emplace(std::move(items_.front()));
  items_.pop_front();
  has_items_.store(!items_.empty(), std::memory_order_relaxed);
  return wait_result::ok;
}

std::optional<runtime::inference_response> response_queue::try_pop() {
  std::lock_guard<std::mutex> guard{mu_};
  if (items_.empty())
    return std::nullopt;
  auto r = std::move(items_.front());
  items_.pop_front();
  has_items_.store(!items_.empty(), std::memory_order_relaxed);
  return r;
}

bool response_queue::final_seen() const {
  std::lock_guard<std::mutex> guard{mu_};
  return final_;
}

} // namespace conch::python
