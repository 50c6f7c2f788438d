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

runtime::result<call_limits> call_limits::make(
  const std::vector<protocol::feature_group>& groups, int64_t max_inflight, call_byte_limits bytes,
  std::shared_ptr<runtime::statistics::connection_stats> stats,
  std::shared_ptr<runtime::statistics::byte_budget> input, protocol::client_shm client_shm) {
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
  if (stats)
    out.stats_ = std::move(stats);
  out.admission_ = protocol::admission{max_inflight, out.stats_};
  out.bytes_ = bytes;
  out.client_shm_ = client_shm;
  out.input_ = input ? std::move(input)
                     : std::make_shared<runtime::statistics::byte_budget>(bytes.max_inflight_bytes);
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

runtime::result<protocol::admission::ticket> call_limits::admit(size_t bytes) const {
  auto place = admission_.try_take();
  if (!place)
    return runtime::unavailable("the server is busy: too many requests in flight");
  if (bytes == 0)
    return protocol::admission::ticket{
      std::make_shared<protocol::admission::place>(std::move(place))};
  if (input_ != nullptr && input_->limit() != 0 && bytes > input_->limit()) {
    // It could never be admitted: too large, not busy, so that it is not retried.
    stats_->count(runtime::statistics::request_refusal::body_size);
    return runtime::invalid_argument("request of " + std::to_string(bytes)
                                     + " bytes exceeds the whole budget of requests in flight, "
                                     + std::to_string(input_->limit()) + " bytes");
  }
  // One ticket, in one allocation, holds both places: the request's and its
  // bytes'.
  struct places {
    protocol::admission::place request;
    runtime::statistics::byte_ticket bytes;
  };
  auto both = std::make_shared<places>();
  if (!both->bytes.take(input_, bytes)) {
    stats_->count(runtime::statistics::request_refusal::input_budget);
    return runtime::unavailable("the server is busy: requests in flight exceed "
                                + std::to_string(input_->limit()) + " bytes");
  }
  both->request = std::move(place);
  return protocol::admission::ticket{std::move(both)};
}

} // namespace conch::transports::grpc
