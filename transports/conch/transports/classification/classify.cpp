#include "conch/transports/classification/classify.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <numeric>
#include <type_traits>

#include "conch/runtime/bytes_elements.hpp"

namespace conch::transports::classification {

namespace {

using runtime::data_type;

// A buffer that owns `bytes` without copying them.
runtime::buffer adopt(std::string bytes) {
  auto owner = std::make_shared<std::string>(std::move(bytes));
  auto* data = reinterpret_cast<std::byte*>(owner->data());
  auto size = owner->size();
  return {std::move(owner), data, size};
}

template <class T>
T value_at(const std::byte* base, size_t i) {
  T v;
  std::memcpy(&v, base + i * sizeof(T), sizeof(T));
  return v;
}

template <class T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

template <class T>
std::string format_value(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::to_string(static_cast<double>(v));
  else if constexpr (std::is_signed_v<T>)
    return std::to_string(static_cast<int64_t>(v));
  else
    return std::to_string(static_cast<uint64_t>(v));
}

// Appends the top `k` classes of the `n` values at `base` to `out`.
template <class T>
void rank_entry(const std::byte* base, size_t n, size_t k, const std::vector<std::string>& labels,
                std::string& out) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [base](size_t a, size_t b) {
    T va = value_at<T>(base, a);
    T vb = value_at<T>(base, b);
    if (is_nan(va))
      return false;
    return is_nan(vb) || va > vb;
  });
  for (size_t i = 0; i < k; ++i) {
    auto index = order[i];
    std::string s = format_value(value_at<T>(base, index)) + ":" + std::to_string(index);
    if (index < labels.size() && !labels[index].empty())
      s += ":" + labels[index];
    runtime::append_bytes_element(out, s);
  }
}

template <class T>
std::string rank_all(const runtime::tensor& t, size_t batch, size_t n, size_t k,
                     const std::vector<std::string>& labels) {
  std::string out;
  for (size_t b = 0; b < batch; ++b)
    rank_entry<T>(t.data.data() + b * n * sizeof(T), n, k, labels, out);
  return out;
}

runtime::status unsupported_type(data_type type) {
  return runtime::invalid_argument(
    "class result not available for output due to unsupported type '"
    + std::string{runtime::data_type_name(type)} + "'");
}

bool classifiable(data_type type) noexcept {
  return type != data_type::bool_ && type != data_type::fp16 && type != data_type::bf16
         && type != data_type::bytes && type != data_type::invalid;
}

runtime::result<std::string> rank(const runtime::tensor& t, size_t batch, size_t n, size_t k,
                                  const std::vector<std::string>& labels) {
  switch (t.type) {
    case data_type::uint8: return rank_all<uint8_t>(t, batch, n, k, labels);
    case data_type::uint16: return rank_all<uint16_t>(t, batch, n, k, labels);
    case data_type::uint32: return rank_all<uint32_t>(t, batch, n, k, labels);
    case data_type::uint64: return rank_all<uint64_t>(t, batch, n, k, labels);
    case data_type::int8: return rank_all<int8_t>(t, batch, n, k, labels);
    case data_type::int16: return rank_all<int16_t>(t, batch, n, k, labels);
    case data_type::int32: return rank_all<int32_t>(t, batch, n, k, labels);
    case data_type::int64: return rank_all<int64_t>(t, batch, n, k, labels);
    case data_type::fp32: return rank_all<float>(t, batch, n, k, labels);
    case data_type::fp64: return rank_all<double>(t, batch, n, k, labels);
    default: break;
  }
  return unsupported_type(t.type);
}

} // namespace

runtime::result<runtime::tensor> classify(const runtime::tensor& t, uint64_t k, bool batched,
                                          const std::vector<std::string>& labels) {
  if (!classifiable(t.type))
    return unsupported_type(t.type);
  bool has_batch = batched && !t.shape.empty();
  runtime::shape_type entry_shape{t.shape.begin() + (has_batch ? 1 : 0), t.shape.end()};
  auto n = runtime::element_count(entry_shape);
  auto batch = has_batch ? t.shape.front() : int64_t{1};
  auto size = runtime::element_size(t.type);
  if (n < 0 || batch < 0 || (size != 0 && t.data.size() != uint64_t(n) * uint64_t(batch) * size))
    return runtime::internal_error("output tensor shape does not match size of output for '"
                                   + t.name + "'");
  if (n > max_classification_elements)
    return runtime::invalid_argument("classification output tensor too large");
  auto count = std::min<uint64_t>(k, static_cast<uint64_t>(n));
  auto bytes = rank(t, batch, n, count, labels);
  if (!bytes)
    return bytes.error();
  runtime::tensor out;
  out.name = t.name;
  out.type = data_type::bytes;
  if (has_batch)
    out.shape.push_back(batch);
  out.shape.push_back(static_cast<int64_t>(count));
  out.data = adopt(std::move(*bytes));
  return out;
}

} // namespace conch::transports::classification
