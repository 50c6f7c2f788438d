#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <grpc/compression.h>
#include <grpcpp/server_context.h>

#include "conch/runtime/status.hpp"
#include "conch/transports/pattern/text_pattern.hpp"
#include "grpc_service.pb.h"

namespace conch::transports::grpc {

/// The request metadata of one inference call that the forward pattern
/// selects, added to each of the call's requests as string parameters (like
/// the HTTP frontend's header forwarding). Immutable once made.
class forwarded_headers {
 public:
  /// Forwards nothing.
  forwarded_headers() = default;

  /// Selects the client metadata of `ctx` whose keys `pattern` finds a
  /// match in. Binary metadata (keys ending in `-bin`) is never forwarded.
  forwarded_headers(const ::grpc::ServerContextBase& ctx, const pattern::text_pattern& pattern);

  /// Adds the selected metadata to `request` as string parameters named
  /// like the keys; a parameter the request sets itself wins. INVALID_ARG
  /// ("Header '<key>' is reserved") when a selected key names a reserved
  /// parameter.
  runtime::status apply(inference::ModelInferRequest& request) const;

 private:
  std::vector<std::pair<std::string, std::string>> headers_;
  runtime::status error_;
};

/// What the gRPC server's options set on every inference call (ModelInfer
/// and ModelStreamInfer): the compression of its responses and the
/// metadata it forwards.
struct infer_call_settings {
  /// The compression level of inference responses; gRPC picks an
  /// algorithm the client accepts. GRPC_COMPRESS_LEVEL_NONE: none.
  grpc_compression_level compression = GRPC_COMPRESS_LEVEL_NONE;
  /// Request metadata whose keys this finds a match in become request
  /// parameters; nullopt: none.
  std::optional<pattern::text_pattern> forward_pattern;

  /// Sets the response compression of the call of `ctx` and selects the
  /// metadata it forwards.
  forwarded_headers begin(::grpc::ServerContextBase& ctx) const;
};

/// Applies `settings` (nullptr: none) to a ModelInfer call before it
/// starts: compression, and forwarded metadata added to `request`, which
/// the call owns. The status of forwarded_headers::apply.
runtime::status begin_infer_call(const infer_call_settings* settings,
                                 ::grpc::ServerContextBase& ctx,
                                 const inference::ModelInferRequest& request);

} // namespace conch::transports::grpc
