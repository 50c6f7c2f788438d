#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "conch/runtime/buffer.hpp"
#include "conch/runtime/result.hpp"

namespace conch::transports::http {

/// A Content-Encoding the transport can read and write.
enum class content_coding {
  /// No coding.
  identity,
  /// RFC 1952 gzip.
  gzip,
  /// RFC 1950 zlib-wrapped deflate (what `deflate` means on the wire).
  deflate,
};

/// The coding named by a Content-Encoding value; empty and "identity" are
/// identity. Anything else is `unsupported` ("Unsupported compression type").
runtime::result<content_coding> parse_content_coding(std::string_view value);

/// Decodes `body`. The decoded size may not exceed `max_size`; a larger or a
/// corrupt body is `invalid_argument` naming the coding. Nor may it exceed
/// `room`, the bytes a budget has left: where that is the tighter bound, a
/// body past it is `unavailable`, found without inflating more than `room`
/// bytes. Identity returns `body` itself.
runtime::result<runtime::buffer> decode_body(content_coding coding, const runtime::buffer& body,
                                             size_t max_size, size_t room = SIZE_MAX);

} // namespace conch::transports::http
