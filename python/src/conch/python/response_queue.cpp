#include "conch/python/response_queue.hpp"

#include <pybind11/pybind11.h>

namespace conch::python {

namespace py = pybind11;

void response_queue::push(runtime::inference_response&& r) noexcept {
  if (on_response_) {
    {
      std::lock_guard<std::mutex> guard{mu_};
      final_ = final_ || r.final;
    }
    with_gil([&] {
      auto response = py::cast(std::move(r));
      py::handle(on_response_.get())(response);
    });
    return;
  }
  {
    std::lock_guard<std::mutex> guard{mu_};
    final_ = final_ || r.final;
    items_.push_back(std::move(r));
  }
  cv_.notify_one();
}

response_queue::wait_result response_queue::pop(std::chrono::nanoseconds timeout,
                                                std::optional<runtime::inference_response>& out) {
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
  return wait_result::ok;
}

std::optional<runtime::inference_response> response_queue::try_pop() {
  std::lock_guard<std::mutex> guard{mu_};
  if (items_.empty())
    return std::nullopt;
  auto r = std::move(items_.front());
  items_.pop_front();
  return r;
}

bool response_queue::final_seen() const {
  std::lock_guard<std::mutex> guard{mu_};
  return final_;
}

} // namespace conch::python
