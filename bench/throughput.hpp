#pragma once

#include <string>

#include <benchmark/benchmark.h>

#include "conch/actors/server.hpp"

namespace conch::bench {

/// How submitting threads keep their share of the requests in flight.
enum class refill {
  /// Each thread loops: take a slot (sleeping while its window is full),
  /// submit; callbacks free slots.
  loop,
  /// Each thread submits its share once; every callback submits the next
  /// request itself, so no client thread wakes up per answer.
  callback,
};

/// `in_flight` requests to `model` in flight, split over `threads` submitting
/// threads. Reports infer/s and records it under `key`.
void throughput(benchmark::State& state, conch::server* srv, std::string model, int threads,
                int in_flight, refill how, std::string key);

} // namespace conch::bench
