#include "conch/runtime/buffer.hpp"

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

namespace conch::runtime {
namespace {

TEST(buffer, allocated_bytes_are_aligned_writable_and_kept_by_any_copy) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{7}, size_t{64}, size_t{4097}, size_t{1} << 20}) {
    auto b = buffer::allocate(size);
    EXPECT_EQ(b.size(), size);
    EXPECT_EQ(b.type(), memory_type::cpu);
    ASSERT_NE(b.data(), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % alignof(std::max_align_t), 0u);
    std::memset(b.data(), 0xab, size);  // the sanitizers check the whole range is ours
    auto copy = b.slice(0, size);
    b = buffer{};
    for (size_t i = 0; i < size; i += 511)
      EXPECT_EQ(copy.data()[i], std::byte{0xab});
  }
}

TEST(buffer, a_copy_holds_its_bytes_after_the_original_is_gone) {
  std::vector<buffer> kept;
  for (int i = 0; i < 64; ++i) {
    auto b = buffer::copy_of(&i, sizeof i);
    kept.push_back(b.slice(0, sizeof i));
  }
  for (int i = 0; i < 64; ++i) {
    int value = -1;
    std::memcpy(&value, kept[static_cast<size_t>(i)].data(), sizeof value);
    EXPECT_EQ(value, i);
    EXPECT_EQ(kept[static_cast<size_t>(i)].owner().use_count(), 1);
  }
}

} // namespace
} // namespace conch::runtime
