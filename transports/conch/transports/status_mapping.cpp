#include "conch/transports/status_mapping.hpp"

namespace conch::transports {

namespace {

using runtime::errc;

// gRPC code numbers are fixed by the gRPC protocol (grpc/status.h).
constexpr std::array<status_mapping_entry, 9> table{{
  {errc::ok, 200, 0, "OK"},
  {errc::internal, 500, 13, "INTERNAL"},
  {errc::not_found, 404, 5, "NOT_FOUND"},
  {errc::invalid_argument, 400, 3, "INVALID_ARGUMENT"},
  {errc::unavailable, 503, 14, "UNAVAILABLE"},
  {errc::unsupported, 501, 12, "UNIMPLEMENTED"},
  {errc::already_exists, 400, 6, "ALREADY_EXISTS"},
  {errc::cancelled, 400, 1, "CANCELLED"},
  {errc::unknown, 400, 2, "UNKNOWN"},
}};

} // namespace

const std::array<status_mapping_entry, 9>& status_mapping_table() noexcept {
  return table;
}

const status_mapping_entry& status_mapping_for(errc code) noexcept {
  auto index = static_cast<size_t>(code);
  if (index < table.size())
    return table[index];
  return table[static_cast<size_t>(errc::unknown)];
}

} // namespace conch::transports
