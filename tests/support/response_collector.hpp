#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "conch/runtime/inference_response.hpp"

namespace conch::tests {

/// Collects the responses of any number of requests through the callbacks it
/// hands out, and lets a test wait for them with a deadline. The callbacks
/// share the collector's state, so a response that arrives after the test
/// gave up stays harmless. Thread-safe.
class response_collector {
 public:
  /// One response as it arrived, with its place in the arrival order.
  struct entry {
    runtime::inference_response response;
    std::chrono::steady_clock::time_point at;
    size_t order = 0;
  };

  response_collector() : state_(std::make_shared<state>()) {}

  /// A callback that records every response it receives.
  runtime::response_callback callback() const {
    return [s = state_](runtime::inference_response&& r) {
      std::lock_guard<std::mutex> guard{s->mu};
      bool final = r.final;
      auto order = s->entries.size();
      s->entries.push_back(entry{std::move(r), std::chrono::steady_clock::now(), order});
      if (final) {
        ++s->finals;
        ++s->finals_per_id[s->entries.back().response.id];
      }
      s->cv.notify_all();
    };
  }

  /// Waits until `n` final responses arrived; false when `timeout` passed first.
  bool wait_finals(size_t n, std::chrono::milliseconds timeout = std::chrono::seconds{10}) const {
    std::unique_lock<std::mutex> lock{state_->mu};
    return state_->cv.wait_for(lock, timeout, [&] { return state_->finals >= n; });
  }

  /// Waits until `n` responses (final or not) arrived.
  bool wait_responses(size_t n,
                      std::chrono::milliseconds timeout = std::chrono::seconds{10}) const {
    std::unique_lock<std::mutex> lock{state_->mu};
    return state_->cv.wait_for(lock, timeout, [&] { return state_->entries.size() >= n; });
  }

  /// Every response so far, in arrival order.
  std::vector<entry> entries() const {
    std::lock_guard<std::mutex> guard{state_->mu};
    return state_->entries;
  }

  /// The responses of request `id`, in arrival order.
  std::vector<runtime::inference_response> of(const std::string& id) const {
    std::lock_guard<std::mutex> guard{state_->mu};
    std::vector<runtime::inference_response> out;
    for (const auto& e : state_->entries)
      if (e.response.id == id)
        out.push_back(e.response);
    return out;
  }

  /// The final response of request `id`; an error response "no final
  /// response" when there is none.
  runtime::inference_response final_of(const std::string& id) const {
    std::lock_guard<std::mutex> guard{state_->mu};
    for (const auto& e : state_->entries)
      if (e.response.id == id && e.response.final)
        return e.response;
    runtime::inference_response none;
    none.error = runtime::internal_error("test: no final response for '" + id + "'");
    return none;
  }

  /// The first final response (for tests that send one request).
  runtime::inference_response final_response() const {
    std::lock_guard<std::mutex> guard{state_->mu};
    for (const auto& e : state_->entries)
      if (e.response.final)
        return e.response;
    runtime::inference_response none;
    none.error = runtime::internal_error("test: no final response");
    return none;
  }

  /// The ids of the final responses, in arrival order.
  std::vector<std::string> final_order() const {
    std::lock_guard<std::mutex> guard{state_->mu};
    std::vector<std::string> out;
    for (const auto& e : state_->entries)
      if (e.response.final)
        out.push_back(e.response.id);
    return out;
  }

  /// How many final responses each request id received.
  std::map<std::string, size_t> finals_per_id() const {
    std::lock_guard<std::mutex> guard{state_->mu};
    return state_->finals_per_id;
  }

  /// The number of final responses so far.
  size_t finals() const {
    std::lock_guard<std::mutex> guard{state_->mu};
    return state_->finals;
  }

 private:
  struct state {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<entry> entries;
    std::map<std::string, size_t> finals_per_id;
    size_t finals = 0;
  };

  std::shared_ptr<state> state_;
};

} // namespace conch::tests
