#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "conch/actors/feature_group.hpp"
#include "conch/transports/http/connection_policy.hpp"

namespace conch::actors {

/// One group of restricted endpoints: requests to the listed features must
/// carry header `key` with value `value`.
using http_feature_group = feature_group;

/// Options of the KServe HTTP frontend. The fields up to
/// header_forward_pattern equal Python's KServeHttp.Options; the others are
/// Conch's additions.
struct http_options {
  /// The address to listen on (an IPv4 or IPv6 literal).
  std::string address = "0.0.0.0";
  /// The TCP port, 0 to 65535; 0 picks a free one (see http_frontend::port).
  int port = 8000;
  /// Give each loop thread its own listening socket with SO_REUSEPORT.
  bool reuse_port = false;
  /// The number of libuv loop threads; at least 1.
  int thread_count = 8;
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
  /// Conch: the largest request body in bytes, before and after
  /// decompression (400 beyond it).
  size_t max_input_size = 64 * 1024 * 1024;
  /// Conch: the largest request line plus headers in bytes (431 beyond).
  size_t max_header_size = 64 * 1024;
  /// Conch: the timeouts and caps each connection is held to.
  transports::http::connection_policy policy;
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

/// Every option of `o` by its name, the connection policy's fields among
/// them: `visit(name, field)` for each. The Python binding builds the
/// options from keyword arguments of these names and gives Python the
/// defaults from here, so each default is written once, in this header.
template <class Visit>
void for_each_option(http_options& o, Visit&& visit) {
  visit("address", o.address);
  visit("port", o.port);
  visit("reuse_port", o.reuse_port);
  visit("thread_count", o.thread_count);
  visit("header_forward_pattern", o.header_forward_pattern);
  visit("restricted_features", o.restricted_features);
  visit("allow_client_shm", o.allow_client_shm);
  visit("max_inflight", o.max_inflight);
  visit("max_input_size", o.max_input_size);
  visit("max_header_size", o.max_header_size);
  for_each_option(o.policy, visit);
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
