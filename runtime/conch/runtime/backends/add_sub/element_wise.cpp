#include "conch/runtime/backends/add_sub/element_wise.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace conch::runtime::backends::add_sub {

namespace {

// Signed overflow is undefined behaviour, so integers are computed in their
// unsigned counterpart, which wraps, and converted back.
template <class T>
T add(T a, T b) noexcept {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

template <class T>
T subtract(T a, T b) noexcept {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}

// Tensor bytes may sit at any offset of a request body, hence memcpy rather
// than typed pointers.
template <class T>
void run(const std::byte* a, const std::byte* b, std::byte* sum, std::byte* difference,
         size_t count) noexcept {
  for (size_t i = 0; i < count; ++i) {
    T x;
    T y;
    std::memcpy(&x, a + i * sizeof(T), sizeof(T));
    std::memcpy(&y, b + i * sizeof(T), sizeof(T));
    if (sum != nullptr) {
      T s = add(x, y);
      std::memcpy(sum + i * sizeof(T), &s, sizeof(T));
    }
    if (difference != nullptr) {
      T d = subtract(x, y);
      std::memcpy(difference + i * sizeof(T), &d, sizeof(T));
    }
  }
}

} // namespace

bool is_supported_type(data_type type) noexcept {
  switch (type) {
    case data_type::int8:
    case data_type::int16:
    case data_type::int32:
    case data_type::int64:
    case data_type::uint8:
    case data_type::uint16:
    case data_type::uint32:
    case data_type::uint64:
    case data_type::fp32:
    case data_type::fp64: return true;
    default: return false;
  }
}

void add_sub_elements(data_type type, const std::byte* a, const std::byte* b, std::byte* sum,
                      std::byte* difference, size_t count) noexcept {
  switch (type) {
    case data_type::int8: return run<int8_t>(a, b, sum, difference, count);
    case data_type::int16: return run<int16_t>(a, b, sum, difference, count);
    case data_type::int32: return run<int32_t>(a, b, sum, difference, count);
    case data_type::int64: return run<int64_t>(a, b, sum, difference, count);
    case data_type::uint8: return run<uint8_t>(a, b, sum, difference, count);
    case data_type::uint16: return run<uint16_t>(a, b, sum, difference, count);
    case data_type::uint32: return run<uint32_t>(a, b, sum, difference, count);
    case data_type::uint64: return run<uint64_t>(a, b, sum, difference, count);
    case data_type::fp32: return run<float>(a, b, sum, difference, count);
    case data_type::fp64: return run<double>(a, b, sum, difference, count);
    default: return;
  }
}

} // namespace conch::runtime::backends::add_sub
