#include "conch/runtime/bytes_elements.hpp"

#include <cstring>

namespace conch::runtime {

namespace {

uint32_t read_length(const std::byte* p) noexcept {
  auto* b = reinterpret_cast<const unsigned char*>(p);
  return uint32_t{b[0]} | uint32_t{b[1]} << 8 | uint32_t{b[2]} << 16 | uint32_t{b[3]} << 24;
}

template <class F>
status walk(const std::byte* data, size_t size, F&& on_element) {
  size_t pos = 0;
  while (pos < size) {
    if (size - pos < 4)
      return invalid_argument("BYTES data ends inside a length prefix at byte "
                              + std::to_string(pos));
    auto len = read_length(data + pos);
    pos += 4;
    if (len > size - pos)
      return invalid_argument("BYTES element of length " + std::to_string(len)
                              + " runs past the end of the data at byte " + std::to_string(pos));
    on_element(std::string_view{reinterpret_cast<const char*>(data + pos), len});
    pos += len;
  }
  return status::ok();
}

} // namespace

result<size_t> count_bytes_elements(const std::byte* data, size_t size) {
  size_t n = 0;
  if (auto st = walk(data, size, [&n](std::string_view) { ++n; }); !st)
    return st;
  return n;
}

result<std::vector<std::string_view>> split_bytes_elements(const std::byte* data, size_t size) {
  std::vector<std::string_view> out;
  if (auto st = walk(data, size, [&out](std::string_view e) { out.push_back(e); }); !st)
    return st;
  return out;
}

void append_bytes_element(std::string& out, std::string_view element) {
  auto len = static_cast<uint32_t>(element.size());
  char prefix[4] = {static_cast<char>(len & 0xff), static_cast<char>((len >> 8) & 0xff),
                    static_cast<char>((len >> 16) & 0xff), static_cast<char>((len >> 24) & 0xff)};
  out.append(prefix, 4);
  out.append(element);
}

buffer serialize_bytes_elements(const std::vector<std::string_view>& elements) {
  size_t total = 0;
  for (auto e : elements)
    total += 4 + e.size();
  auto out = buffer::allocate(total);
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  for (auto e : elements) {
    auto len = static_cast<uint32_t>(e.size());
    p[0] = len & 0xff;
    p[1] = (len >> 8) & 0xff;
    p[2] = (len >> 16) & 0xff;
    p[3] = (len >> 24) & 0xff;
    if (!e.empty())
      std::memcpy(p + 4, e.data(), e.size());
    p += 4 + e.size();
  }
  return out;
}

} // namespace conch::runtime
