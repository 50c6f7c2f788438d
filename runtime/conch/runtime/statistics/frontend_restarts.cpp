#include "conch/runtime/statistics/frontend_restarts.hpp"

#include <exception>

#include <prometheus/counter.h>

#include "conch/runtime/statistics/custom_metric_family.hpp"

namespace conch::runtime::statistics {

namespace {

// In the process registry that every exposition includes; never destroyed,
// as a supervisor may count during static destruction.
prometheus::Family<prometheus::Counter>* family() {
  static auto* f = []() -> prometheus::Family<prometheus::Counter>* {
    try {
      return &prometheus::BuildCounter()
                .Name("conch_frontend_restarts_total")
                .Help("Number of times a frontend's transport was restarted after it failed")
                .Register(*custom_metric_family::process_registry());
    } catch (const std::exception&) {
      return nullptr; // a custom metric took the name: counted nowhere
    }
  }();
  return f;
}

} // namespace

void frontend_restarts::note(const std::string& frontend) noexcept {
  try {
    if (auto* f = family())
      f->Add({{"frontend", frontend}}).Increment();
  } catch (...) {
    // Out of memory: the restart happened all the same.
  }
}

int64_t frontend_restarts::count(const std::string& frontend) noexcept {
  try {
    if (auto* f = family())
      return static_cast<int64_t>(f->Add({{"frontend", frontend}}).Value());
  } catch (...) {
  }
  return 0;
}

} // namespace conch::runtime::statistics
