#include "throughput.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "bench_results.hpp"
#include "completion.hpp"
#include "identity_request.hpp"
#include "in_flight_window.hpp"

namespace conch::bench {

namespace {

using steady = std::chrono::steady_clock;

// Requests per benchmark iteration, over all threads.
constexpr int iteration_requests = 16384;

// What one submitting thread needs: the server, its request and its share.
struct share {
  conch::server* srv;
  const std::string* model;
  const runtime::buffer* input;
  int count;
  uint32_t window;
  std::atomic<int64_t>* errors;
};

void loop_share(const share& s) {
  in_flight_window slots{s.window};
  auto* errors = s.errors;
  for (int i = 0; i < s.count; ++i) {
    slots.acquire();
    s.srv->submit(identity_request(*s.model, *s.input),
                 [&slots, errors](runtime::inference_response&& r) {
                   if (!r.final)
                     return;
                   if (!r.error.is_ok())
                     errors->fetch_add(1, std::memory_order_relaxed);
                   slots.release();
                 });
  }
  slots.drain();
}

// A self-refilling chain of requests: each answer submits the next one
// until `unsubmitted` runs out, and the last answer wakes the thread.
struct chain {
  const share* s;
  std::atomic<int> unsubmitted;
  std::atomic<int> unanswered;
  completion done{wait_mode::futex};
};

void submit_next(chain& c) {
  if (c.unsubmitted.fetch_sub(1, std::memory_order_relaxed) <= 0)
    return;
  c.s->srv->submit(identity_request(*c.s->model, *c.s->input),
                  [&c](runtime::inference_response&& r) {
                    if (!r.final)
                      return;
                    if (!r.error.is_ok())
                      c.s->errors->fetch_add(1, std::memory_order_relaxed);
                    submit_next(c);
                    if (c.unanswered.fetch_sub(1, std::memory_order_acq_rel) == 1)
                      c.done.signal();
                  });
}

void callback_share(const share& s) {
  chain c{&s, s.count, s.count};
  for (uint32_t i = 0; i < s.window; ++i)
    submit_next(c);
  c.done.wait();
}

} // namespace

void throughput(benchmark::State& state, conch::server* srv, std::string model, int threads,
                int in_flight, refill how, std::string key) {
  auto input = identity_input();
  std::atomic<int64_t> errors{0};
  share s{srv, &model, &input, iteration_requests / threads,
          static_cast<uint32_t>(in_flight / threads), &errors};
  auto run_share = how == refill::loop ? loop_share : callback_share;
  std::chrono::nanoseconds wall{0};
  for (auto _ : state) {
    auto t0 = steady::now();
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; ++t)
      ts.emplace_back(run_share, std::cref(s));
    for (auto& t : ts)
      t.join();
    wall += steady::now() - t0;
  }
  auto total = static_cast<double>(state.iterations()) * s.count * threads;
  auto rate = wall.count() > 0 ? total / std::chrono::duration<double>(wall).count() : 0.0;
  state.SetItemsProcessed(static_cast<int64_t>(total));
  state.counters["infer_per_s"] = rate;
  state.counters["errors"] = static_cast<double>(errors.load());
  results().infer_per_s[key] = {rate, errors.load()};
}

} // namespace conch::bench
