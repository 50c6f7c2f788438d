#include "conch/python/py_delivery.hpp"

#include <condition_variable>
#include <exception>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "conch/python/gil.hpp"
#include "conch/python/response_queue.hpp"

namespace conch::python {

namespace py = pybind11;

namespace {

struct delivery {
  std::shared_ptr<response_queue> queue;
  runtime::inference_response response;
};

struct delivery_thread {
  std::mutex mu;
  std::condition_variable wake;
  std::deque<delivery> items;
  bool started = false;

  void run() {
    std::unique_lock<std::mutex> lock{mu};
    for (;;) {
      wake.wait(lock, [this] { return !items.empty(); });
      auto batch = std::move(items);
      items.clear();
      lock.unlock();
      // One acquisition of the GIL for everything that queued meanwhile.
      bool ran = with_gil([&] {
        for (auto& d : batch) {
          // One delivery's failure (out of memory) must not drop the rest.
          try {
            d.queue->deliver(std::move(d.response));
          } catch (py::error_already_set& e) {
            e.discard_as_unraisable("conch: delivering a response");
          } catch (const std::exception&) {
          }
        }
        batch.clear();
      });
      if (!ran)
        batch.clear(); // finalizing: nobody is left to hear them
      lock.lock();
    }
  }
};

// Never destroyed: Conch threads may deliver while static destructors run.
delivery_thread& the_thread() {
  static auto* instance = new delivery_thread;
  return *instance;
}

} // namespace

void py_delivery::post(std::shared_ptr<response_queue> queue, runtime::inference_response&& r) {
  auto& t = the_thread();
  {
    std::lock_guard<std::mutex> guard{t.mu};
    t.items.push_back({std::move(queue), std::move(r)});
    if (!t.started) {
      t.started = true;
      std::thread{[&t] { t.run(); }}.detach();
    }
  }
  t.wake.notify_one();
}

} // namespace conch::python
