#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace conch::fuzz {

/// Reads the choices a target makes from the front of the fuzzer's input,
/// leaving the rest as the payload; past the end every choice is 0.
class fuzz_input {
 public:
  fuzz_input(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t byte() noexcept { return size_ > 0 ? (--size_, *data_++) : 0; }

  uint32_t u32() noexcept {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v = (v << 8) | byte();
    return v;
  }

  /// The bytes not yet taken.
  std::string_view rest() const noexcept {
    return {reinterpret_cast<const char*>(data_), size_};
  }

 private:
  const uint8_t* data_;
  size_t size_;
};

} // namespace conch::fuzz
