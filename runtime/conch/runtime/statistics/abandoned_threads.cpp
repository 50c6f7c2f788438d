#include "conch/runtime/statistics/abandoned_threads.hpp"

#include <atomic>

#include <prometheus/counter.h>
#include <prometheus/gauge.h>

#include "conch/runtime/statistics/custom_metric_family.hpp"

namespace conch::runtime::statistics {

namespace {

// The series live in the process registry that every server's exposition
// includes; never destroyed, since an abandoned thread may end after static
// destructors ran.
struct account {
  std::atomic<int64_t> running{0};
  std::atomic<int64_t> total{0};
  prometheus::Gauge* running_gauge = nullptr;
  prometheus::Counter* total_counter = nullptr;

  account() {
    const auto& registry = custom_metric_family::process_registry();
    try {
      running_gauge = &prometheus::BuildGauge()
                         .Name("conch_abandoned_threads")
                         .Help("Number of threads running model code that were abandoned past "
                               "an exit timeout and have not returned")
                         .Register(*registry)
                         .Add({});
      total_counter = &prometheus::BuildCounter()
                         .Name("conch_abandoned_threads_total")
                         .Help("Number of threads running model code abandoned past an exit "
                               "timeout since the process started")
                         .Register(*registry)
                         .Add({});
    } catch (const std::exception&) {
      // Out of memory or a name taken by a custom metric: counted, not exposed.
    }
  }
};

account& the_account() {
  static auto* instance = new account;
  return *instance;
}

} // namespace

void abandoned_threads::note_abandoned() noexcept {
  auto& a = the_account();
  a.running.fetch_add(1, std::memory_order_relaxed);
  a.total.fetch_add(1, std::memory_order_relaxed);
  if (a.running_gauge != nullptr)
    a.running_gauge->Increment();
  if (a.total_counter != nullptr)
    a.total_counter->Increment();
}

void abandoned_threads::note_finished() noexcept {
  auto& a = the_account();
  a.running.fetch_sub(1, std::memory_order_relaxed);
  if (a.running_gauge != nullptr)
    a.running_gauge->Decrement();
}

int64_t abandoned_threads::running() noexcept {
  return the_account().running.load(std::memory_order_relaxed);
}

int64_t abandoned_threads::total() noexcept {
  return the_account().total.load(std::memory_order_relaxed);
}

} // namespace conch::runtime::statistics
