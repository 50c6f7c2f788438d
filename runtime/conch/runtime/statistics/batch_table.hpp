#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "conch/runtime/statistics/atomic_duration.hpp"
#include "conch/runtime/statistics/statistics_snapshot.hpp"

namespace conch::runtime::statistics {

/// The per-batch-size execution statistics of one model version, updated
/// without a lock. Thread-safe. Sizes 1..capacity have a slot each, sized at
/// construction; up to `overflow_slots` other sizes claim a spare slot with one
/// compare-and-swap each (no spinning, no lock). Executions at further sizes
/// are left out of the batch statistics (they still count as executions in
/// model_statistics): that takes a model batching at more sizes than it
/// declared, which the schedulers do not do.
class batch_table {
 public:
  /// Spare slots for sizes above the capacity.
  static constexpr std::size_t overflow_slots = 16;

  /// The most sizes given a slot up front, whatever the model declares.
  static constexpr std::size_t max_capacity = 4096;

  /// A table with a slot for every size from 1 to `capacity` (at least 1, at
  /// most max_capacity).
  explicit batch_table(std::size_t capacity);

  batch_table(const batch_table&) = delete;
  batch_table& operator=(const batch_table&) = delete;

  /// Counts one execution at `batch_size` with its compute durations.
  /// Returns false when the size found no slot (or is 0) and was left out.
  bool record(uint64_t batch_size, uint64_t input_ns, uint64_t infer_ns,
              uint64_t output_ns) noexcept;

  /// The sizes that ran at least once, sorted by size.
  std::vector<batch_stat> snapshot() const;

 private:
  struct slot {
    /// 0 while an overflow slot is free.
    std::atomic<uint64_t> batch_size{0};
    atomic_duration compute_input;
    atomic_duration compute_infer;
    atomic_duration compute_output;
  };

  slot* find(uint64_t batch_size) noexcept;
  static void append(std::vector<batch_stat>& out, uint64_t batch_size, const slot& s);

  std::size_t capacity_;
  // Index i holds batch size i + 1.
  std::unique_ptr<slot[]> direct_;
  std::array<slot, overflow_slots> overflow_;
};

} // namespace conch::runtime::statistics
