#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

namespace conch::runtime {

/// SipHash-2-4 with its 128-bit output (Aumasson and Bernstein), fed in
/// pieces: a keyed hash whose outputs an attacker who does not know the key
/// cannot steer into collisions. Little-endian hosts only.
class siphash128 {
 public:
  using key_type = std::array<uint64_t, 2>;

  explicit siphash128(const key_type& k) noexcept
    : v0_(k[0] ^ 0x736f6d6570736575ULL), v1_(k[1] ^ 0x646f72616e646f6dULL ^ 0xee),
      v2_(k[0] ^ 0x6c7967656e657261ULL), v3_(k[1] ^ 0x7465646279746573ULL) {}

  /// Appends `size` bytes to the message.
  void add(const void* data, size_t size) noexcept {
    const auto* p = static_cast<const unsigned char*>(data);
    length_ += size;
    while (size > 0 && pending_size_ != 0) {  // complete the pending word first
      pending_ |= uint64_t{*p++} << (8 * pending_size_);
      --size;
      if (++pending_size_ == 8) {
        compress(pending_);
        pending_ = 0;
        pending_size_ = 0;
      }
    }
    for (; size >= 8; size -= 8, p += 8) {
      uint64_t m;
      std::memcpy(&m, p, 8);
      compress(m);
    }
    for (size_t i = 0; i < size; ++i)
      pending_ |= uint64_t{p[i]} << (8 * pending_size_++);
  }

  /// The hash of the message: its first 8 output bytes as a little-endian
  /// word, then the last 8. Call once.
  std::pair<uint64_t, uint64_t> finish() noexcept {
    compress((static_cast<uint64_t>(length_) << 56) | pending_);
    v2_ ^= 0xee;
    for (int i = 0; i < 4; ++i)
      round();
    uint64_t first = v0_ ^ v1_ ^ v2_ ^ v3_;
    v1_ ^= 0xdd;
    for (int i = 0; i < 4; ++i)
      round();
    return {first, v0_ ^ v1_ ^ v2_ ^ v3_};
  }

 private:
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "reads little-endian words");

  static uint64_t rotl(uint64_t x, int b) noexcept { return (x << b) | (x >> (64 - b)); }

  void round() noexcept {
    v0_ += v1_;
    v1_ = rotl(v1_, 13) ^ v0_;
    v0_ = rotl(v0_, 32);
    v2_ += v3_;
    v3_ = rotl(v3_, 16) ^ v2_;
    v0_ += v3_;
    v3_ = rotl(v3_, 21) ^ v0_;
    v2_ += v1_;
    v1_ = rotl(v1_, 17) ^ v2_;
    v2_ = rotl(v2_, 32);
  }

  void compress(uint64_t m) noexcept {
    v3_ ^= m;
    round();
    round();
    v0_ ^= m;
  }

  uint64_t v0_, v1_, v2_, v3_;
  uint64_t pending_ = 0;     // the bytes of an incomplete word, little-endian
  size_t pending_size_ = 0;  // how many
  size_t length_ = 0;        // every byte added
};

} // namespace conch::runtime
