#include "conch/python/py_delivery.hpp"

#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
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
        drain_deferred(); // this thread holds nothing else (gil.hpp, rule 3)
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
      if (!started) {
        // Without a thread nothing would ever run: the item is dropped
        // (it is released here, and a Python reference it holds is
        // deferred as py_ref defers it).
        try {
          std::thread{[this] { run(); }}.detach();
        } catch (const std::system_error&) {
          return;
        }
        started = true;
      }
      items.push_back(std::move(i));
      ++queued;
    }
    wake.notify_one();
  }

  void flush(std::chrono::milliseconds limit) {
    nogil released;
    std::unique_lock<std::mutex> lock{mu};
    if (!started || id == std::this_thread::get_id())
      return;
    uint64_t target = queued;
    done.wait_for(lock, limit, [&] { return ran >= target || !interpreter_alive(); });
  }
};

// The two threads. Never destroyed: Conch threads may deliver while static
// destructors run. A forked child has neither thread (and its parent's
// mutexes may have been held at the fork), so it starts afresh, leaking the
// parent's copies.
delivery_thread* responses = nullptr;
delivery_thread* logs = nullptr;

void start_afresh() {
  responses = new delivery_thread;
  logs = new delivery_thread;
}

std::once_flag set_up;

void set_up_once() {
  std::call_once(set_up, [] {
    start_afresh();
    pthread_atfork(nullptr, nullptr, [] { start_afresh(); });
  });
}

} // namespace

void py_delivery::post(std::shared_ptr<response_queue> queue, runtime::inference_response&& r) {
  set_up_once();
  responses->push({std::move(queue), std::move(r), {}});
}

void py_delivery::post_log(std::function<void()> call) {
  set_up_once();
  logs->push({nullptr, {}, std::move(call)});
}

void py_delivery::flush_logs() {
  set_up_once();
  logs->flush(std::chrono::seconds{1});
}

} // namespace conch::python
