#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace conch::fuzz {

/// Depth and length bombs for the JSON targets, made at run time so that no
/// large input is committed and libFuzzer's input length limit still lets
/// them reach megabytes. An input that starts with '!' reads
///   '!' <count byte> <head> '|' <open> '|' <close> '|' <tail>
/// and becomes head + open x n + close x n + tail. A count byte below 128
/// gives n = 64 + count (around the nesting limit of 100); above, n grows
/// with the byte until open and close fill about 1 MiB. Any other input is
/// returned as it is.
inline std::string expand_json_bomb(std::string_view input) {
  if (input.empty() || input.front() != '!')
    return std::string{input};
  input.remove_prefix(1);
  size_t count = 0;
  if (!input.empty()) {
    count = static_cast<uint8_t>(input.front());
    input.remove_prefix(1);
  }
  std::string_view part[4];
  for (int i = 0; i < 3; ++i) {
    auto bar = input.find('|');
    part[i] = input.substr(0, bar);
    input = bar == std::string_view::npos ? std::string_view{} : input.substr(bar + 1);
  }
  part[3] = input;
  constexpr size_t budget = size_t{1} << 20;
  size_t unit = std::max<size_t>(part[1].size() + part[2].size(), 1);
  size_t n = count < 128 ? 64 + count : (count - 127) * (budget / 128) / unit;
  n = std::min(n, 2 * budget / unit);
  std::string out;
  out.reserve(part[0].size() + n * unit + part[3].size());
  out.append(part[0]);
  for (size_t i = 0; i < n; ++i)
    out.append(part[1]);
  for (size_t i = 0; i < n; ++i)
    out.append(part[2]);
  out.append(part[3]);
  return out;
}

} // namespace conch::fuzz
