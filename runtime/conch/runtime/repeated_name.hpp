#pragma once

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
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

/// Erases every item of `items` (a vector) whose name an earlier item has,
/// keeping the order of the rest: Triton takes an output requested twice
/// as requested once, with the first request's settings. Linear in the
/// items; does nothing (and allocates nothing) when no name repeats.
template <class Vector, class NameOf>
void keep_first_of_each_name(Vector& items, NameOf name_of) {
  if (!repeated_name(items, name_of))
    return;
  std::unordered_set<std::string> seen;
  seen.reserve(items.size());
  items.erase(std::remove_if(items.begin(), items.end(),
                             [&](const auto& item) {
                               return !seen.emplace(std::string{name_of(item)}).second;
                             }),
              items.end());
}

} // namespace conch::runtime
