#include "conch/transports/grpc/infer_call_settings.hpp"

#include <string_view>

#include "conch/transports/forwarding/header_forwarding.hpp"

namespace conch::transports::grpc {

forwarded_headers::forwarded_headers(const ::grpc::ServerContextBase& ctx,
                                     const pattern::text_pattern& pattern) {
  for (const auto& [key, value] : ctx.client_metadata()) {
    std::string_view name{key.data(), key.size()};
    if (name.size() >= 4 && name.substr(name.size() - 4) == "-bin")
      continue;
    auto forwarded = forwarding::forwards_header(name, pattern);
    if (!forwarded) {
      error_ = forwarded.error();
      headers_.clear();
      return;
    }
    if (*forwarded)
      headers_.emplace_back(std::string{name}, std::string{value.data(), value.size()});
  }
}

runtime::status forwarded_headers::apply(inference::ModelInferRequest& request) const {
  if (!error_.is_ok())
    return error_;
  if (headers_.empty())
    return runtime::status::ok();
  auto& params = *request.mutable_parameters();
  for (const auto& [name, value] : headers_) {
    inference::InferParameter p;
    p.set_string_param(value);
    params.insert({name, std::move(p)});
  }
  return runtime::status::ok();
}

forwarded_headers infer_call_settings::begin(::grpc::ServerContextBase& ctx) const {
  if (compression != GRPC_COMPRESS_LEVEL_NONE)
    ctx.set_compression_level(compression);
  if (!forward_pattern)
    return {};
  return forwarded_headers{ctx, *forward_pattern};
}

runtime::status begin_infer_call(const infer_call_settings* settings,
                                 ::grpc::ServerContextBase& ctx,
                                 const inference::ModelInferRequest& request) {
  if (!settings)
    return runtime::status::ok();
  auto forwarded = settings->begin(ctx);
  // The request message is the call's own and gRPC reads it no more.
  return forwarded.apply(const_cast<inference::ModelInferRequest&>(request));
}

} // namespace conch::transports::grpc
