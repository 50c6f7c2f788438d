#include "conch/runtime/backends/common/execute_delay.hpp"

#include <algorithm>
#include <thread>

#include "conch/runtime/backends/common/model_config_view.hpp"

namespace conch::runtime::backends::common {

result<execute_delay> execute_delay::from_config(const inference::ModelConfig& config) {
  auto ms = non_negative_config_parameter(config, parameter_name, 0);
  if (!ms)
    return ms.error();
  execute_delay out;
  out.configured_ = find_config_parameter(config, parameter_name) != nullptr;
  out.default_ = std::chrono::milliseconds{*ms};
  return out;
}

std::chrono::milliseconds execute_delay::delay_for(const inference_job& job) const noexcept {
  if (!configured_)
    return std::chrono::milliseconds{0};
  auto ms = int_parameter(job.request().parameters, parameter_name);
  if (!ms)
    return default_;
  return std::chrono::milliseconds{std::max<int64_t>(*ms, 0)};
}

bool execute_delay::wait(const batch& jobs) const {
  if (!configured_)
    return true; // the common case: no clock reads, no callable
  auto longest = std::chrono::milliseconds{0};
  for (const auto& job : jobs)
    longest = std::max(longest, delay_for(*job));
  auto all_cancelled = [&jobs] {
    return std::all_of(jobs.begin(), jobs.end(), [](const job_ptr& j) { return j->is_cancelled(); });
  };
  return wait_unless(longest, all_cancelled);
}

bool wait_unless(std::chrono::milliseconds delay, const std::function<bool()>& stop) {
  using clock = std::chrono::steady_clock;
  // Short steps bound how long a cancelled request stays in the model, which
  // is what lets a server stop with an exit timeout promptly.
  constexpr auto step = std::chrono::milliseconds{1};
  auto deadline = clock::now() + delay;
  for (auto now = clock::now(); now < deadline; now = clock::now()) {
    if (stop())
      return false;
    std::this_thread::sleep_for(std::min<clock::duration>(deadline - now, step));
  }
  return true;
}

} // namespace conch::runtime::backends::common
