#include "round_trip.hpp"

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "bench_results.hpp"
#include "identity_request.hpp"
#include "percentiles.hpp"

namespace conch::bench {

namespace {

using steady = std::chrono::steady_clock;

// Reports the percentiles of `samples` (ns) as counters and records the p50.
void report(benchmark::State& state, std::vector<int64_t>& samples, int64_t errors,
            const std::string& key) {
  auto us = [&](double p) { return percentile(samples, p) / 1000.0; };
  double p50 = us(50);
  state.counters["p50_us"] = p50;
  state.counters["p90_us"] = us(90);
  state.counters["p99_us"] = us(99);
  state.counters["errors"] = static_cast<double>(errors);
  results().p50_us[key] = {p50, errors};
}

} // namespace

void round_trip(benchmark::State& state, conch::server* srv, wait_mode mode,
                std::chrono::nanoseconds spin, std::string key) {
  completion done{mode, spin};
  auto input = identity_input();
  const std::string model = "identity_fp32";
  std::vector<int64_t> samples;
  samples.reserve(1 << 20);
  int64_t errors = 0;
  bool ok = false;
  for (auto _ : state) {
    done.reset();
    auto t0 = steady::now();
    srv->submit(identity_request(model, input),
                [&ok, &done](runtime::inference_response&& r) {
                  ok = r.error.is_ok();
                  done.signal();
                });
    done.wait();
    samples.push_back((steady::now() - t0).count());
    errors += ok ? 0 : 1;
  }
  report(state, samples, errors, key);
}

void thread_ping_pong(benchmark::State& state, wait_mode mode, std::chrono::nanoseconds spin,
                      std::string key) {
  completion ping{mode, spin};
  completion pong{mode, spin};
  std::atomic<bool> stop{false};
  // The responder re-arms `ping` before it answers, so the next ping always
  // finds it armed.
  std::thread responder{[&] {
    for (;;) {
      ping.wait();
      ping.reset();
      if (stop.load(std::memory_order_acquire))
        return;
      pong.signal();
    }
  }};
  std::vector<int64_t> samples;
  samples.reserve(1 << 20);
  for (auto _ : state) {
    pong.reset();
    auto t0 = steady::now();
    ping.signal();
    pong.wait();
    samples.push_back((steady::now() - t0).count());
  }
  stop.store(true, std::memory_order_release);
  ping.signal();
  responder.join();
  report(state, samples, 0, key);
}

} // namespace conch::bench
