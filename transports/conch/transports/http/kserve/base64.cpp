#include "conch/transports/http/kserve/base64.hpp"

#include <array>
#include <cstdint>

namespace conch::transports::http::kserve {

namespace {

constexpr std::array<int8_t, 256> make_table() {
  std::array<int8_t, 256> t{};
  for (auto& v : t)
    v = -1;
  constexpr std::string_view alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < alphabet.size(); ++i)
    t[static_cast<uint8_t>(alphabet[i])] = static_cast<int8_t>(i);
  return t;
}

constexpr auto table = make_table();

runtime::status bad(std::string_view why) {
  return runtime::invalid_argument("invalid base64 data: " + std::string{why});
}

} // namespace

runtime::result<std::string> base64_decode(std::string_view text) {
  size_t end = text.size();
  size_t padding = 0;
  while (end > 0 && text[end - 1] == '=' && padding < 2) {
    --end;
    ++padding;
  }
  if (padding > 0 && text.size() % 4 != 0)
    return bad("padding in the wrong place");
  if (end % 4 == 1)
    return bad("a dangling final character");
  std::string out;
  out.reserve(end / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < end; ++i) {
    auto v = table[static_cast<uint8_t>(text[i])];
    if (v < 0)
      return bad("unexpected character at offset " + std::to_string(i));
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

} // namespace conch::transports::http::kserve
