#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "conch/runtime/result.hpp"
#include "conch/runtime/status.hpp"
#include "conch/transports/pattern/text_pattern.hpp"

namespace conch::transports::forwarding {

/// Compiles a header forwarding pattern the way every frontend reads it:
/// an RE2 regular expression, searched for without regard to case, in time
/// linear in the header name. nullopt for an empty pattern, which forwards
/// nothing; INVALID_ARG naming `option` when the pattern is not a valid
/// regular expression.
runtime::result<std::optional<pattern::text_pattern>>
compile_forward_pattern(const std::string& pattern, std::string_view option);

/// Whether a request header (or gRPC metadata key) called `name` becomes a
/// request parameter: true when `pattern` finds a match in the name.
/// INVALID_ARG ("Header '<name>' is reserved") when it matches and names a
/// reserved parameter (KServe protocol §0.4, §1.11).
runtime::result<bool> forwards_header(std::string_view name, const pattern::text_pattern& pattern);

/// True for the request parameter names the protocol reserves, in any case:
/// sequence_id, sequence_start, sequence_end, priority, timeout, headers,
/// binary_data_output, and every name starting with `triton_`.
bool reserved_parameter(std::string_view name) noexcept;

} // namespace conch::transports::forwarding
