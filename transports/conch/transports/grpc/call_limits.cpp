#include "conch/transports/grpc/call_limits.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace conch::transports::grpc {

namespace {

std::string metadata_key(const std::string& header) {
  std::string key{call_limits::header_prefix};
  for (char c : header)
    key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

} // namespace

runtime::result<call_limits> call_limits::make(const std::vector<protocol::feature_group>& groups,
                                               int64_t max_inflight) {
  if (max_inflight < 0)
    return runtime::invalid_argument("max_inflight must not be negative");
  auto keyed = groups;
  for (auto& g : keyed)
    if (!g.key.empty())
      g.key = metadata_key(g.key);
  auto restricted = protocol::restrictions::make(keyed);
  if (!restricted)
    return restricted.error();
  call_limits out;
  out.restrictions_ = std::move(*restricted);
  out.admission_ = protocol::admission{max_inflight};
  return out;
}

runtime::status call_limits::check(const ::grpc::ServerContextBase& ctx,
                                   protocol::feature f) const {
  const auto* wanted = restrictions_.required(f);
  if (wanted == nullptr)
    return runtime::status::ok();
  auto [first, last] = ctx.client_metadata().equal_range(
    ::grpc::string_ref{wanted->key.data(), wanted->key.size()});
  for (auto i = first; i != last; ++i)
    if (std::string_view{i->second.data(), i->second.size()} == wanted->value)
      return runtime::status::ok();
  return runtime::unavailable("This protocol is restricted, expecting header '" + wanted->key
                              + "'");
}

runtime::result<protocol::admission::ticket> call_limits::admit() const {
  auto ticket = admission_.try_admit();
  if (!ticket)
    return runtime::unavailable("the server is busy: too many requests in flight");
  return ticket;
}

} // namespace conch::transports::grpc
