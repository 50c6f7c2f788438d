// conch-bench-inprocess: in-process C++ inference of an identity FP32[1,16]
// model through conch::server::infer, on a temporary model repository.
//
//   baseline/ping_pong/<wait>   two threads waking each other, no Conch: the
//                               machine's floor for a hand-off.
//   round_trip/<wait>           one request in flight: submit, wait for the
//                               callback, repeat; p50/p90/p99 in µs.
//   traced/...                  round_trip/futex and throughput of
//                               identity_fp32 again, with every request
//                               traced (Triton mode, TIMESTAMPS, rate 1,
//                               into a trace file in the temporary
//                               repository): what tracing costs.
//   throughput/<model>/<refill>/threads:<n>
//                               64 requests in flight split over n submitting
//                               threads; infer/s. ensemble_identity_2 is two
//                               identity steps as an ensemble,
//                               sequence_identity the identity behind the
//                               sequence batcher, one request per sequence.
//
// Flags besides Google Benchmark's:
//   --caf_profile=conch|caf_default|sharing         scheduler settings
//   --scheduler_threads=N                           CAF worker threads
//                                                   (default: half the cores)
// It prints the machine first and the figures next to the targets
// last, and never fails on a number.

#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>

#include <benchmark/benchmark.h>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "bench_results.hpp"
#include "machine_description.hpp"
#include "round_trip.hpp"
#include "temp_repository.hpp"
#include "throughput.hpp"

#include "conch/actors/server.hpp"
#include "conch/actors/server_host.hpp"

namespace {

using namespace conch::bench;
using namespace std::chrono_literals;

constexpr double target_p50_us = 15.0;
constexpr double target_infer_per_s = 150000.0;
constexpr int throughput_in_flight = 64;

struct bench_options {
  std::string caf_profile = "conch";
  size_t scheduler_threads = conch::actors::host_options::default_scheduler_threads();
};

// Removes our flags from argv so Google Benchmark does not reject them.
bench_options take_options(int& argc, char** argv) {
  bench_options out;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--caf_profile=", 0) == 0)
      out.caf_profile = a.substr(14);
    else if (a.rfind("--scheduler_threads=", 0) == 0)
      out.scheduler_threads = std::stoul(a.substr(20));
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  return out;
}

// Applies Conch's settings, then the profile's changes on top.
void configure(caf::actor_system_config& cfg, const bench_options& o) {
  conch::actors::host_options host;
  host.scheduler_threads = o.scheduler_threads;
  conch::actors::configure_actor_system(cfg, host);
  if (o.caf_profile == "caf_default") {
    // CAF's own idle strategy, for comparison: 100 polls, then 500 polls
    // 50 µs apart (an enqueue does not wake these), then a sleep that an
    // enqueue wakes.
    cfg.set("work-stealing.aggressive-poll-attempts", size_t{100});
    cfg.set("work-stealing.moderate-poll-attempts", size_t{500});
  } else if (o.caf_profile == "sharing") {
    // One shared queue; every enqueue signals a condition variable.
    cfg.set("scheduler.policy", caf::atom("sharing"));
  }
}

struct waiter {
  const char* name;
  wait_mode mode;
  std::chrono::nanoseconds spin;
};

constexpr waiter waiters[] = {{"condvar", wait_mode::condvar, 0ns},
                              {"futex", wait_mode::futex, 0ns},
                              {"spin50us_futex", wait_mode::spin_then_futex, 50us}};

// The benchmarks hold a pointer: the one server copy lives in main, so it
// goes before the actor system does.
void register_all(conch::server* srv) {
  for (auto w : waiters) {
    std::string name = std::string{"baseline/ping_pong/"} + w.name;
    benchmark::RegisterBenchmark(name.c_str(), thread_ping_pong, w.mode, w.spin, name)
      ->UseRealTime();
  }
  for (auto w : waiters) {
    std::string name = std::string{"round_trip/"} + w.name;
    benchmark::RegisterBenchmark(name.c_str(), round_trip, srv, w.mode, w.spin, name)
      ->UseRealTime();
  }
  for (const char* model :
       {"identity_fp32", "identity_fp32_batched", "ensemble_identity_2", "sequence_identity"})
    for (auto how : {refill::loop, refill::callback})
      for (int threads : {2, 4}) {
        auto name = std::string{"throughput/"} + model
                    + (how == refill::loop ? "/loop" : "/callback")
                    + "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), throughput, srv, std::string{model}, threads,
                                     throughput_in_flight, how, name)
          ->UseRealTime()
          ->MinTime(1.0);
      }
}

// Runs `body` with every request traced, then turns tracing off again.
template <class Body>
void traced(benchmark::State& state, conch::server* srv, Body body) {
  conch::runtime::tracing::trace_settings_update on;
  on.level = {true, conch::runtime::trace_timestamps};
  on.rate = {true, 1u};
  if (auto st = srv->update_trace_settings("", on); !st) {
    state.SkipWithError(st.error().message().c_str());
    return;
  }
  body(state);
  conch::runtime::tracing::trace_settings_update off;
  off.level = {true, 0u};
  (void) srv->update_trace_settings("", off);
  srv->flush_traces();
}

void register_traced(conch::server* srv) {
  benchmark::RegisterBenchmark("traced/round_trip/futex", [srv](benchmark::State& state) {
    traced(state, srv, [srv](benchmark::State& s) {
      round_trip(s, srv, wait_mode::futex, 0ns, "traced/round_trip/futex");
    });
  })->UseRealTime();
  const char* name = "traced/throughput/identity_fp32/loop/threads:2";
  benchmark::RegisterBenchmark(name, [srv, name](benchmark::State& state) {
    traced(state, srv, [srv, name](benchmark::State& s) {
      throughput(s, srv, "identity_fp32", 2, throughput_in_flight, refill::loop, name);
    });
  })->UseRealTime()->MinTime(1.0);
}

const char* verdict(bool met) { return met ? "met" : "missed"; }

void print_summary() {
  std::printf("\nsummary (targets from the issue: round-trip p50 <= %.0f us, >= %.0f infer/s)\n",
              target_p50_us, target_infer_per_s);
  for (const auto& [name, f] : results().p50_us) {
    bool baseline = name.rfind("baseline/", 0) == 0;
    std::printf("  %-52s p50 %9.1f us   %s%s\n", name.c_str(), f.value,
                baseline ? "(no Conch: the floor)" : "target <= 15 us: ",
                baseline ? "" : verdict(f.value <= target_p50_us));
  }
  for (const auto& [name, f] : results().infer_per_s)
    std::printf("  %-52s %9.0f infer/s   target >= 150000: %s%s\n", name.c_str(), f.value,
                verdict(f.value >= target_infer_per_s), f.errors ? "   (errors!)" : "");
}

} // namespace

int main(int argc, char** argv) {
  auto options = take_options(argc, argv);
  std::cout << machine_description() << "conch:   caf_profile=" << options.caf_profile << ", "
            << options.scheduler_threads << " CAF scheduler threads\n"
            << "targets: round-trip p50 <= " << target_p50_us << " us, >= " << target_infer_per_s
            << " infer/s\n\n"
            << std::flush;
  benchmark::Initialize(&argc, argv);
  temp_repository repository;
  if (repository.path().empty()) {
    std::cerr << "conch-bench-inprocess: cannot write a temporary model repository\n";
    return 1;
  }
  caf::actor_system_config cfg;
  configure(cfg, options);
  caf::actor_system sys{cfg};
  conch::server_options server_options;
  server_options.model_repository = {repository.path()};
  // Off until the traced/ benchmarks turn it on.
  server_options.trace.file = repository.path() + "/trace.json";
  auto srv = conch::server::start(sys, server_options);
  if (!srv) {
    std::cerr << "conch-bench-inprocess: " << srv.error().to_string() << "\n";
    return 1;
  }
  register_all(&*srv);
  register_traced(&*srv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::ClearRegisteredBenchmarks();
  benchmark::Shutdown();
  print_summary();
  (void) srv->stop();
  return 0;
}
