#include "conch/runtime/statistics/batch_table.hpp"

#include <algorithm>

namespace conch::runtime::statistics {

batch_table::batch_table(std::size_t capacity)
  : capacity_(std::clamp<std::size_t>(capacity, 1, max_capacity)),
    direct_(std::make_unique<slot[]>(capacity_)) {
}

bool batch_table::record(uint64_t batch_size, uint64_t input_ns, uint64_t infer_ns,
                         uint64_t output_ns) noexcept {
  auto* s = find(batch_size);
  if (s == nullptr)
    return false;
  s->compute_input.add(input_ns);
  s->compute_infer.add(infer_ns);
  s->compute_output.add(output_ns);
  return true;
}

batch_table::slot* batch_table::find(uint64_t batch_size) noexcept {
  if (batch_size == 0)
    return nullptr;
  if (batch_size <= capacity_)
    return &direct_[batch_size - 1];
  for (auto& s : overflow_) {
    auto owner = s.batch_size.load(std::memory_order_acquire);
    if (owner == 0 && s.batch_size.compare_exchange_strong(owner, batch_size,
                                                           std::memory_order_acq_rel))
      return &s;
    // A failed exchange left the slot's owner in `owner`: maybe this size,
    // claimed by another thread at the same moment.
    if (owner == batch_size)
      return &s;
  }
  return nullptr;
}

std::vector<batch_stat> batch_table::snapshot() const {
  std::vector<batch_stat> out;
  for (std::size_t i = 0; i < capacity_; ++i)
    append(out, i + 1, direct_[i]);
  for (const auto& s : overflow_)
    if (auto size = s.batch_size.load(std::memory_order_acquire); size != 0)
      append(out, size, s);
  // Overflow sizes are claimed in arrival order, not size order.
  std::sort(out.begin(), out.end(),
            [](const batch_stat& a, const batch_stat& b) { return a.batch_size < b.batch_size; });
  return out;
}

void batch_table::append(std::vector<batch_stat>& out, uint64_t batch_size, const slot& s) {
  auto input = s.compute_input.load();
  if (input.count == 0)
    return;
  out.push_back({batch_size, input, s.compute_infer.load(), s.compute_output.load()});
}

} // namespace conch::runtime::statistics
