#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace conch::bench {

/// The p-th percentile (0..100, nearest rank) of `samples`; sorts them.
/// 0 when there are none.
inline double percentile(std::vector<int64_t>& samples, double p) {
  if (samples.empty())
    return 0;
  auto rank = static_cast<size_t>(p / 100.0 * static_cast<double>(samples.size() - 1) + 0.5);
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(rank),
                   samples.end());
  return static_cast<double>(samples[rank]);
}

} // namespace conch::bench
