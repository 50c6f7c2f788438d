#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "conch/actors/feature_group.hpp"
#include "conch/transports/http/listener_options.hpp"

namespace conch::actors {

/// One group of restricted endpoints: requests to the listed features must
/// carry header `key` with value `value`.
using http_feature_group = feature_group;

/// Options of the KServe HTTP frontend: how it listens and what it accepts
/// (transports::http::listener_options: address, port, reuse_port,
/// thread_count, max_input_size, max_header_size and the connection policy,
/// written once there), and what the KServe and cloud routes serve. The
/// fields Python's KServeHttp.Options has (address, port, reuse_port,
/// thread_count, header_forward_pattern, restricted_features) carry its
/// names; the others are Conch's additions.
struct http_options : transports::http::listener_options {
  /// A regular expression; request headers whose names match become string
  /// parameters of inference requests. Empty: none.
  std::string header_forward_pattern;
  /// Endpoint groups behind a required header: a request to a feature of a
  /// group without the group's header and value gets 403. A feature may be
  /// in one group at most; start() answers INVALID_ARG otherwise, and for an
  /// unknown feature name or an empty header name.
  std::vector<http_feature_group> restricted_features;
  /// Let clients register system and CUDA shared-memory regions and name
  /// them in inference requests (Triton's --allow-client-shm). Off: register
  /// and unregister get 501 "Client shared memory is disabled. ...", and so
  /// does an inference request that names a region; status is still served.
  bool allow_client_shm = false;
  /// Conch: requests waiting on the server (inference, repository changes)
  /// at most in flight; beyond it they get 503 at once. 0: no limit.
  int64_t max_inflight = 4096;
  /// Serve Amazon SageMaker's hosting contract (/ping, /invocations) instead
  /// of the KServe paths, over the same routes (sagemaker_handler.hpp).
  bool sagemaker = false;
  /// SageMaker: the model /invocations runs.
  std::string sagemaker_default_model = "unspecified_SAGEMAKER_TRITON_DEFAULT_MODEL_NAME";
  /// SageMaker: "ready" or "live", what GET /ping answers 200 for.
  std::string sagemaker_ping_mode = "ready";
  /// SageMaker: "infer", "generate" or "generate_stream", the KServe
  /// endpoint /invocations is served by.
  std::string sagemaker_inference_type = "infer";
  /// Serve Vertex AI's health and predict routes instead of the KServe
  /// paths, over the same routes (vertex_ai_handler.hpp).
  bool vertex_ai = false;
  /// Vertex AI: the model the predict route runs; empty: the repository's
  /// one ready model, as Triton picks it.
  std::string vertex_ai_default_model;
  /// Vertex AI: the routes (AIP_HEALTH_ROUTE, AIP_PREDICT_ROUTE), regular
  /// expressions matched against the whole path.
  std::string vertex_ai_health_route;
  std::string vertex_ai_predict_route;
};

/// Every option of `o` by its name, the listener's and the connection
/// policy's among them: `visit(name, field)` for each. The Python binding
/// builds the options from keyword arguments of these names and gives
/// Python the defaults from here, so each default is written once, in this
/// header or the listener's.
template <class Visit>
void for_each_option(http_options& o, Visit&& visit) {
  for_each_option(static_cast<transports::http::listener_options&>(o), visit);
  visit("header_forward_pattern", o.header_forward_pattern);
  visit("restricted_features", o.restricted_features);
  visit("allow_client_shm", o.allow_client_shm);
  visit("max_inflight", o.max_inflight);
  visit("sagemaker", o.sagemaker);
  visit("sagemaker_default_model", o.sagemaker_default_model);
  visit("sagemaker_ping_mode", o.sagemaker_ping_mode);
  visit("sagemaker_inference_type", o.sagemaker_inference_type);
  visit("vertex_ai", o.vertex_ai);
  visit("vertex_ai_default_model", o.vertex_ai_default_model);
  visit("vertex_ai_health_route", o.vertex_ai_health_route);
  visit("vertex_ai_predict_route", o.vertex_ai_predict_route);
}

} // namespace conch::actors

namespace conch {
using actors::http_options;
} // namespace conch
