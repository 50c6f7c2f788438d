#pragma once

#include <string>
#include <string_view>

#include "conch/transports/http/header_map.hpp"

namespace conch::transports::http {

/// The reason phrase of a status code ("Not Found"); "Unknown" if unlisted.
std::string_view reason_phrase(int status) noexcept;

/// How the transport frames a response body on the wire.
enum class body_framing {
  /// `Content-Length: <n>` and exactly n bytes.
  content_length,
  /// `Transfer-Encoding: chunked`, for streams of unknown length.
  chunked,
  /// Neither: the body ends when the connection closes (HTTP/1.0 streams).
  until_close,
};

/// The status line and header block of a response, ending in the blank line.
/// `keep_alive` decides the Connection field; `http10` the version answered.
std::string encode_head(int status, const header_map& headers, body_framing framing,
                        size_t content_length, bool keep_alive, bool http10);

/// The line that starts a chunk of `size` bytes ("1a\r\n").
std::string chunk_prefix(size_t size);

/// The CRLF that ends a chunk's data.
inline constexpr std::string_view chunk_suffix = "\r\n";

/// The last chunk, which ends a chunked body.
inline constexpr std::string_view last_chunk = "0\r\n\r\n";

/// The interim response sent for `Expect: 100-continue`.
inline constexpr std::string_view continue_response = "HTTP/1.1 100 Continue\r\n\r\n";

} // namespace conch::transports::http
