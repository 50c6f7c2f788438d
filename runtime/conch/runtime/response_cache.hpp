#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

#include "conch/runtime/inference_job.hpp"

namespace conch::runtime {

/// The key of a cached response: 128 bits of a keyed hash (SipHash-2-4
/// with a secret drawn per process), which clients cannot aim at.
struct cache_key {
  uint64_t high = 0;
  uint64_t low = 0;
  friend bool operator==(const cache_key& a, const cache_key& b) {
    return a.high == b.high && a.low == b.low;
  }
};

/// Triton's local response cache: the outputs of successful responses by
/// what the request asked, bounded in bytes, least recently used first out.
/// Thread-safe (one mutex; a lookup copies no tensor data, the entries'
/// buffers are immutable and shared with the responses served from them).
class response_cache {
 public:
  explicit response_cache(size_t capacity_bytes) : capacity_(capacity_bytes) {}

  /// The key of `request` to version `version` of `model`: the model, the
  /// version, each input's name, data type, shape and bytes in name order,
  /// the outputs asked for, and the request's parameters in name order.
  /// (Triton hashes input names and bytes only.)
  static cache_key key_of(const inference_request& request, const std::string& model,
                          int64_t version);

  /// True when the request can be answered from a cache and its answer
  /// stored in one: every input in host memory, and none of its tensors in
  /// memory the client can still change (client_memory::none).
  static bool cacheable(const inference_request& request) noexcept;

  /// The outputs stored under `key`, which become the most recently used.
  std::optional<std::vector<tensor>> lookup(const cache_key& key);

  /// Stores a copy of `outputs` under `key`, evicting the least recently
  /// used entries to make room. An entry larger than the cache, or with an
  /// output outside host memory, is not stored. False when it was not.
  bool insert(const cache_key& key, const std::vector<tensor>& outputs);

  size_t capacity_bytes() const noexcept { return capacity_; }
  size_t size_bytes() const;
  size_t entries() const;

 private:
  struct key_hash {
    size_t operator()(const cache_key& k) const noexcept { return static_cast<size_t>(k.low); }
  };
  struct entry {
    cache_key key;
    std::vector<tensor> outputs;
    size_t bytes = 0;
  };

  const size_t capacity_;
  mutable std::mutex mu_;
  std::list<entry> lru_;  // most recently used first; guarded by mu_
  std::unordered_map<cache_key, std::list<entry>::iterator, key_hash> index_;  // guarded by mu_
  size_t bytes_ = 0;      // guarded by mu_
};

/// Stores the final successful response of a job in a cache under its key
/// (a response_tap, on the answering thread).
class cache_insert_tap final : public response_tap {
 public:
  cache_insert_tap(std::shared_ptr<response_cache> cache, cache_key key)
    : cache_(std::move(cache)), key_(key) {}
  void on_response(inference_response& r) override;

 private:
  std::shared_ptr<response_cache> cache_;
  cache_key key_;
};

} // namespace conch::runtime
