#pragma once

#include <array>
#include <string_view>

#include "conch/runtime/status.hpp"

namespace conch::transports {

/// How one error class appears on each wire protocol.
struct status_mapping_entry {
  /// The error class.
  runtime::errc code;
  /// The HTTP status code a KServe HTTP response carries for it.
  int http_status;
  /// The gRPC status code number (grpc::StatusCode) for it.
  int grpc_code;
  /// The gRPC code's canonical name ("INVALID_ARGUMENT").
  std::string_view grpc_name;
};

/// The one table that maps every `errc` to its HTTP status and gRPC code
/// (spec: kserve-protocol.md §0.1), in `errc` order.
const std::array<status_mapping_entry, 9>& status_mapping_table() noexcept;

/// The table's entry for `code`; values outside the enum map like `unknown`.
const status_mapping_entry& status_mapping_for(runtime::errc code) noexcept;

/// The HTTP status for `code` (200 for ok).
inline int http_status(runtime::errc code) noexcept { return status_mapping_for(code).http_status; }

/// The gRPC status code number for `code` (0 for ok).
inline int grpc_code(runtime::errc code) noexcept { return status_mapping_for(code).grpc_code; }

} // namespace conch::transports
