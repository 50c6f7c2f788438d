#include "conch/runtime/siphash.hpp"

#include <gtest/gtest.h>

using conch::runtime::siphash128;

namespace {

// The output as the reference implementation prints it: 16 bytes.
std::array<uint8_t, 16> bytes_of(std::pair<uint64_t, uint64_t> h) {
  std::array<uint8_t, 16> out{};
  std::memcpy(out.data(), &h.first, 8);
  std::memcpy(out.data() + 8, &h.second, 8);
  return out;
}

const siphash128::key_type reference_key{0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL};

} // namespace

TEST(siphash128, matches_the_reference_vectors) {
  siphash128 empty{reference_key};
  EXPECT_EQ(bytes_of(empty.finish()),
            (std::array<uint8_t, 16>{0xa3, 0x81, 0x7f, 0x04, 0xba, 0x25, 0xa8, 0xe6, 0x6d, 0xf6,
                                     0x72, 0x14, 0xc7, 0x55, 0x02, 0x93}));
  siphash128 one{reference_key};
  uint8_t zero = 0;
  one.add(&zero, 1);
  EXPECT_EQ(bytes_of(one.finish()),
            (std::array<uint8_t, 16>{0xda, 0x87, 0xc1, 0xd8, 0x6b, 0x99, 0xaf, 0x44, 0x34, 0x76,
                                     0x59, 0x11, 0x9b, 0x22, 0xfc, 0x45}));
}

TEST(siphash128, pieces_hash_as_the_whole) {
  uint8_t message[37];
  for (size_t i = 0; i < sizeof message; ++i)
    message[i] = static_cast<uint8_t>(i * 7);
  siphash128 whole{reference_key};
  whole.add(message, sizeof message);
  auto expected = whole.finish();
  for (size_t cut = 0; cut <= sizeof message; ++cut) {
    siphash128 pieces{reference_key};
    pieces.add(message, cut / 2);
    pieces.add(message + cut / 2, cut - cut / 2);
    pieces.add(message + cut, sizeof message - cut);
    EXPECT_EQ(pieces.finish(), expected) << cut;
  }
  siphash128 other_key{{1, 2}};
  other_key.add(message, sizeof message);
  EXPECT_NE(other_key.finish(), expected);
}
