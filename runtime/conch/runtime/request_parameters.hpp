#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "conch/runtime/inference_request.hpp"

namespace conch::runtime {

// The request parameters every protocol reserves (KServe protocol §0.4), read
// in one place. A frontend converts each parameter's wire value into a
// request_parameter_value, keeps the keys only its protocol knows
// (`binary_data_output` over HTTP, `triton_enable_empty_final_response` over
// gRPC) to itself, and hands the rest to apply_request_parameter. The result
// says what went wrong without words: each frontend writes Triton's message
// for its protocol from it.

/// A value no request parameter may have: a JSON array, object or null, or a
/// protobuf parameter whose value is not set.
struct unsupported_parameter_value {};

/// A request parameter's value as a frontend read it, before its key is
/// looked at. A string views the frontend's bytes, which must outlive the
/// apply_request_parameter call (the request keeps its own copy).
using request_parameter_value =
  std::variant<unsupported_parameter_value, bool, int64_t, uint64_t, double, std::string_view>;

/// The reserved parameters that set fields of an inference_request.
enum class reserved_request_parameter : uint8_t {
  /// `sequence_id`: correlation_id.
  sequence_id,
  /// `sequence_start`: request_sequence_start in flags.
  sequence_start,
  /// `sequence_end`: request_sequence_end in flags.
  sequence_end,
  /// `priority`: priority.
  priority,
  /// `timeout`: timeout_us, in microseconds.
  timeout,
};

/// The reserved parameter called exactly `key` (names are case-sensitive), or
/// nullopt.
std::optional<reserved_request_parameter> find_reserved_request_parameter(
  std::string_view key) noexcept;

/// What a reserved parameter's value must be.
enum class expected_parameter_type : uint8_t {
  /// sequence_id: an integer >= 0 (signed or unsigned) or a string.
  unsigned_or_string,
  /// sequence_start, sequence_end: a boolean.
  boolean,
  /// priority, timeout: an integer >= 0 (signed or unsigned).
  unsigned_integer,
};

/// The type `parameter`'s value must have.
expected_parameter_type expected_type_of(reserved_request_parameter parameter) noexcept;

/// How apply_request_parameter took a parameter.
enum class request_parameter_outcome : uint8_t {
  /// It set a field of the request, or was added to its parameters.
  applied,
  /// A reserved parameter's value has another type than `expected`.
  wrong_type,
  /// The key starts with `triton_` and is none of the reserved parameters:
  /// such keys are reserved for Triton and may not be given.
  reserved_prefix,
  /// A custom parameter's value has a type no parameter may have: an
  /// unsupported_parameter_value, or a uint64_t (parameter::value_type has no
  /// unsigned integer).
  unsupported_type,
};

/// The result of apply_request_parameter; `key` and `expected` only mean
/// something for wrong_type.
struct request_parameter_result {
  request_parameter_outcome outcome = request_parameter_outcome::applied;
  reserved_request_parameter key = reserved_request_parameter::sequence_id;
  expected_parameter_type expected = expected_parameter_type::unsigned_or_string;

  bool ok() const noexcept { return outcome == request_parameter_outcome::applied; }
  explicit operator bool() const noexcept { return ok(); }
};

/// Applies the request parameter `key` = `value` to `request`:
/// - sequence_id (string, or integer >= 0) sets correlation_id: a string as
///   a string (even ""), an integer as uint64_t (even 0);
/// - sequence_start / sequence_end (bool): true sets its flag, false leaves
///   the flags alone;
/// - priority / timeout (integer >= 0) set priority / timeout_us;
/// - any other key starting with `triton_` is reserved_prefix;
/// - any other key is appended to request.parameters as a string, bool,
///   int64_t or double; a uint64_t or unsupported value is unsupported_type.
/// On any outcome but applied the request is left as it was.
[[nodiscard]] request_parameter_result apply_request_parameter(std::string_view key,
                                                               const request_parameter_value& value,
                                                               inference_request& request);

} // namespace conch::runtime
