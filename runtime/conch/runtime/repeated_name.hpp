#pragma once

#include <algorithm>
#include <iterator>
#include <optional>
#include <string_view>
#include <vector>

namespace conch::runtime {

/// A name that occurs more than once among `items`, or nothing. `name_of(item)`
/// gives an item's name as anything a std::string_view can be made from; the
/// names must stay where they are while this runs. O(n log n) comparisons
/// whatever the names are (a sort, so no input can make it quadratic); up to
/// a handful of items are compared pairwise, without allocating.
template <class Range, class NameOf>
std::optional<std::string_view> repeated_name(const Range& items, NameOf name_of) {
  constexpr size_t pairwise_up_to = 8;
  auto first = std::begin(items);
  auto last = std::end(items);
  auto count = static_cast<size_t>(std::distance(first, last));
  if (count <= pairwise_up_to) {
    for (auto i = first; i != last; ++i)
      for (auto j = first; j != i; ++j)
        if (std::string_view{name_of(*j)} == std::string_view{name_of(*i)})
          return std::string_view{name_of(*i)};
    return std::nullopt;
  }
  std::vector<std::string_view> names;
  names.reserve(count);
  for (auto i = first; i != last; ++i)
    names.emplace_back(name_of(*i));
  std::sort(names.begin(), names.end());
  auto twice = std::adjacent_find(names.begin(), names.end());
  if (twice == names.end())
    return std::nullopt;
  return *twice;
}

} // namespace conch::runtime
