#include "conch/transports/openai/utf8.hpp"

namespace conch::transports::openai {

namespace {

// The length of the well-formed sequence at `s[i]`, or 0.
size_t sequence_at(std::string_view s, size_t i) noexcept {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  if (c < 0x80)
    return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0)
      lo = 0xA0;
    if (c == 0xED)
      hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0)
      lo = 0x90;
    if (c == 0xF4)
      hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size())
    return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi)
    return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
      return 0;
  return n;
}

} // namespace

bool valid_utf8(std::string_view text) noexcept {
  for (size_t i = 0; i < text.size();) {
    size_t n = sequence_at(text, i);
    if (n == 0)
      return false;
    i += n;
  }
  return true;
}

size_t incomplete_utf8_tail(std::string_view text) noexcept {
  // A lead byte within the last three bytes whose sequence runs past the end.
  for (size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    auto c = static_cast<unsigned char>(text[text.size() - back]);
    if (c < 0x80)
      return 0;
    if (c >= 0xC0) {
      size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
      return need > back ? back : 0;
    }
  }
  return 0;
}

std::string repaired_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t n = sequence_at(text, i);
    if (n == 0) {
      out.append("\xEF\xBF\xBD");
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

} // namespace conch::transports::openai
