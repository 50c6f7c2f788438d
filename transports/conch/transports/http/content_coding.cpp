#include "conch/transports/http/content_coding.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include <zlib.h>

#include "conch/transports/http/header_map.hpp"
#include "conch/transports/http/owned_bytes.hpp"

namespace conch::transports::http {

namespace {

constexpr int gzip_window_bits = 15 + 16;
constexpr int zlib_window_bits = 15;
constexpr size_t inflate_step = 64 * 1024;

std::string coding_name(content_coding coding) {
  return coding == content_coding::gzip ? "gzip" : "deflate";
}

} // namespace

runtime::result<content_coding> parse_content_coding(std::string_view value) {
  auto v = trim(value);
  if (v.empty() || iequals(v, "identity"))
    return content_coding::identity;
  if (iequals(v, "gzip") || iequals(v, "x-gzip"))
    return content_coding::gzip;
  if (iequals(v, "deflate"))
    return content_coding::deflate;
  return runtime::unsupported("Unsupported compression type");
}

runtime::result<runtime::buffer> decode_body(content_coding coding, const runtime::buffer& body,
                                             size_t max_size, size_t room) {
  if (coding == content_coding::identity)
    return body;
  if (body.size() > UINT32_MAX)
    return runtime::invalid_argument("compressed request body is too large");
  z_stream zs{};
  int bits = coding == content_coding::gzip ? gzip_window_bits : zlib_window_bits;
  if (inflateInit2(&zs, bits) != Z_OK)
    return runtime::internal_error("cannot start the " + coding_name(coding) + " decoder");
  zs.next_in = reinterpret_cast<Bytef*>(body.data());
  zs.avail_in = static_cast<uInt>(body.size());
  // Inflate no further than the tighter of the two bounds, plus one byte to
  // tell a body that exactly fits from one that does not.
  size_t bound = std::min({max_size, room, SIZE_MAX - 1});
  auto too_large = [&] {
    if (room < max_size)
      return runtime::unavailable("the decompressed request body does not fit in the bytes left to "
                                  "requests in flight");
    return runtime::invalid_argument("Decompressed request size exceeds the maximum allowed value "
                                     "of " + std::to_string(max_size)
                                     + " bytes. Use --http-max-input-size to increase the limit.");
  };
  std::string out;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    if (out.size() >= bound + 1) {
      inflateEnd(&zs);
      return too_large();
    }
    size_t old = out.size();
    size_t step = std::min(inflate_step, bound + 1 - old);
    out.resize(old + step);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + old);
    zs.avail_out = static_cast<uInt>(step);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.resize(old + step - zs.avail_out);
    if (rc == Z_BUF_ERROR && zs.avail_in == 0)
      break;  // the input ended before the stream did
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
      break;
  }
  inflateEnd(&zs);
  if (rc != Z_STREAM_END)
    return runtime::invalid_argument("request body is not valid " + coding_name(coding) + " data");
  if (out.size() > bound)
    return too_large();
  return owned_bytes(std::move(out));
}

} // namespace conch::transports::http
