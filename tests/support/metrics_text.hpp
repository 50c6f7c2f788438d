#pragma once

#include <optional>
#include <sstream>
#include <string>

namespace conch::tests {

/// The value of the first sample of `family` in Prometheus text `text` whose
/// labels contain `labels` (e.g. `model="m",version="1"`); nullopt when there
/// is none.
inline std::optional<double> metric_value(const std::string& text, const std::string& family,
                                          const std::string& labels) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(family + "{", 0) != 0)
      continue;
    auto close = line.find('}');
    if (close == std::string::npos || line.substr(0, close).find(labels) == std::string::npos)
      continue;
    std::istringstream value(line.substr(close + 1));
    double v = 0;
    if (value >> v)
      return v;
  }
  return std::nullopt;
}

} // namespace conch::tests
