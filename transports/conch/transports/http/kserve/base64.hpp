#pragma once

#include <string>
#include <string_view>

#include "conch/runtime/result.hpp"

namespace conch::transports::http::kserve {

/// Decodes standard base64 (RFC 4648 §4); the trailing '=' padding may be
/// left out. INVALID_ARG for a character outside the alphabet, misplaced
/// padding or a dangling final character.
runtime::result<std::string> base64_decode(std::string_view text);

} // namespace conch::transports::http::kserve
