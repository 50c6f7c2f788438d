#include "conch/python/py_delivery.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "conch/python/gil.hpp"
#include "conch/python/response_queue.hpp"

namespace conch::python {

namespace py = pybind11;

namespace {

// A response for a queue's callable, or a call of its own (a log line).
struct item {
  std::shared_ptr<response_queue> queue;
  runtime::inference_response response;
  std::function<void()> call;

  void run() {
    if (queue)
      queue->deliver(std::move(response));
    else
      call();
  }
};

struct delivery_thread {
  std::mutex mu;
  std::condition_variable wake;
  std::condition_variable done; // signalled when `ran` moves
  std::deque<item> items;
  uint64_t queued = 0; // calls ever queued
  uint64_t ran = 0;    // calls ever run (or dropped)
  bool started = false;
  std::thread::id id;

  void run() {
    std::unique_lock<std::mutex> lock{mu};
    id = std::this_thread::get_id();
    for (;;) {
      wake.wait(lock, [this] { return !items.empty(); });
      auto batch = std::move(items);
      items.clear();
      lock.unlock();
      // One acquisition of the GIL for everything that queued meanwhile.
      bool entered = with_gil([&] {
        for (auto& i : batch) {
          // One call's failure (out of memory) must not drop the rest.
          try {
            i.run();
          } catch (py::error_already_set& e) {
            e.discard_as_unraisable("conch: calling back into Python");
          } catch (const std::exception&) {
          }
        }
        batch.clear(); // what the calls held is released with the GIL held
      });
      if (!entered)
        batch.clear(); // finalizing: nobody is left to hear them
      lock.lock();
      ran = queued - items.size();
      done.notify_all();
    }
  }

  void push(item&& i) {
    {
      std::lock_guard<std::mutex> guard{mu};
      items.push_back(std::move(i));
      ++queued;
      if (!started) {
        started = true;
        std::thread{[this] { run(); }}.detach();
      }
    }
    wake.notify_one();
  }
};

// Never destroyed: Conch threads may deliver while static destructors run.
delivery_thread& the_thread() {
  static auto* instance = new delivery_thread;
  return *instance;
}

} // namespace

void py_delivery::post(std::shared_ptr<response_queue> queue, runtime::inference_response&& r) {
  the_thread().push({std::move(queue), std::move(r), {}});
}

void py_delivery::post(std::function<void()> call) {
  the_thread().push({nullptr, {}, std::move(call)});
}

void py_delivery::flush() {
  auto& t = the_thread();
  nogil released;
  std::unique_lock<std::mutex> lock{t.mu};
  if (!t.started || t.id == std::this_thread::get_id())
    return;
  uint64_t target = t.queued;
  t.done.wait(lock, [&] { return t.ran >= target || !interpreter_alive(); });
}

} // namespace conch::python
