#pragma once

#include <chrono>
#include <string>

#include <benchmark/benchmark.h>

#include "completion.hpp"
#include "conch/actors/server.hpp"

namespace conch::bench {

/// One request to identity_fp32 in flight: submit, wait for the callback as
/// `mode` says, repeat. Reports p50/p90/p99 of the round trip in µs and
/// records the p50 under `key`.
void round_trip(benchmark::State& state, conch::server* srv, wait_mode mode,
                std::chrono::nanoseconds spin, std::string key);

/// The machine's floor for the same pattern without Conch: one thread wakes
/// another, which wakes it back, waiting as `mode` says. A Conch round trip
/// takes at least two such hand-offs.
void thread_ping_pong(benchmark::State& state, wait_mode mode, std::chrono::nanoseconds spin,
                      std::string key);

} // namespace conch::bench
