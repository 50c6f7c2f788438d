#pragma once

#include <array>
#include <cstddef>
#include <utility>

namespace conch::transports::grpc {

/// Nodes taken out of a node-based map (std::map, std::unordered_map) with
/// extract(), kept for the map's next inserts: a long-lived map whose entries
/// come and go (one per request of a stream) then allocates nothing in the
/// steady state. Keeps at most `Capacity`; not thread-safe (guard it with
/// what guards the map).
template <class Map, size_t Capacity = 4>
class spare_nodes {
 public:
  using node_type = typename Map::node_type;

  /// Keeps `node` for a later insert, or lets it go when enough are kept.
  /// What its value still held is let go of now: a kept node holds nothing
  /// of the entry it was.
  void keep(node_type node) {
    if (node.empty() || count_ == Capacity)
      return;
    node.mapped() = typename Map::mapped_type{};
    nodes_[count_++] = std::move(node);
  }

  /// Inserts `value` under `key`, in a kept node where there is one. As
  /// emplace: nothing is inserted where `key` is present already.
  template <class Value>
  void insert(Map& map, const typename Map::key_type& key, Value&& value) {
    if (count_ == 0) {
      map.emplace(key, std::forward<Value>(value));
      return;
    }
    node_type node = std::move(nodes_[--count_]);
    node.key() = key;
    node.mapped() = std::forward<Value>(value);
    auto result = map.insert(std::move(node));
    keep(std::move(result.node));  // not inserted: kept again, emptied
  }

  /// The nodes kept now.
  size_t size() const noexcept { return count_; }

 private:
  std::array<node_type, Capacity> nodes_{};
  size_t count_ = 0;
};

} // namespace conch::transports::grpc
