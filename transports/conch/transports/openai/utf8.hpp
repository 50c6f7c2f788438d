#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace conch::transports::openai {

// UTF-8 at the frontend's edges: a request body must be valid UTF-8 (as
// FastAPI's JSON decoding requires), and what a model writes is made valid
// before it is put into JSON, so that every body and event the frontend
// sends is valid JSON text. All linear in the text.

/// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or
/// code points past U+10FFFF).
bool valid_utf8(std::string_view text) noexcept;

/// The length of the sequence at the end of `text` that is the start of a
/// character whose remaining bytes have not come yet (0 to 3): a stream
/// holds it back until the next piece.
size_t incomplete_utf8_tail(std::string_view text) noexcept;

/// `text` with each ill-formed sequence replaced by U+FFFD.
std::string repaired_utf8(std::string_view text);

} // namespace conch::transports::openai
