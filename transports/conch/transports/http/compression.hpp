#pragma once

#include <string_view>

#include "conch/transports/http/content_coding.hpp"
#include "conch/transports/http/request.hpp"
#include "conch/transports/http/response.hpp"

namespace conch::transports::http {

/// The coding to answer with for an Accept-Encoding value: the highest
/// weighted (`;q=`) of identity, gzip and deflate; ties go to the one listed
/// first; `*` weighs the codings not named. An empty value means identity.
content_coding negotiate_coding(std::string_view accept_encoding);

/// Compresses `body` (all its buffers, as one stream) with `coding`. Fails
/// with `internal` if zlib fails.
runtime::result<runtime::buffer> encode_body(content_coding coding,
                                             const std::vector<runtime::buffer>& body);

/// Compresses `resp`'s whole body for `req`'s Accept-Encoding and sets
/// Content-Encoding. Leaves `resp` as it was when identity is chosen, when the
/// body is empty or already encoded, or when compression fails.
void compress_for(const request& req, response& resp);

} // namespace conch::transports::http
