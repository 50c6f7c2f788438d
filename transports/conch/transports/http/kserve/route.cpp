#include "conch/transports/http/kserve/route.hpp"

namespace conch::transports::http::kserve {

feature feature_of(endpoint e) noexcept {
  switch (e) {
    case endpoint::health_live:
    case endpoint::health_ready:
    case endpoint::model_ready:
      return feature::health;
    case endpoint::server_metadata:
    case endpoint::model_metadata:
      return feature::metadata;
    case endpoint::model_infer:
    case endpoint::model_generate:
    case endpoint::model_generate_stream:
      return feature::inference;
    case endpoint::model_config:
      return feature::model_config;
    case endpoint::model_statistics:
    case endpoint::all_statistics:
      return feature::statistics;
    case endpoint::model_trace_setting:
    case endpoint::trace_setting:
      return feature::trace;
    case endpoint::logging:
      return feature::logging;
    case endpoint::system_shared_memory:
    case endpoint::cuda_shared_memory:
      return feature::shared_memory;
    case endpoint::repository_index:
    case endpoint::repository_load:
    case endpoint::repository_unload:
      return feature::model_repository;
  }
  return feature::metadata;
}

bool method_allowed(const route& r, std::string_view method) noexcept {
  switch (r.target) {
    case endpoint::model_trace_setting:
    case endpoint::trace_setting:
    case endpoint::logging:
      return method == "GET" || method == "POST";
    case endpoint::model_infer:
    case endpoint::model_generate:
    case endpoint::model_generate_stream:
    case endpoint::repository_index:
    case endpoint::repository_load:
    case endpoint::repository_unload:
      return method == "POST";
    case endpoint::system_shared_memory:
    case endpoint::cuda_shared_memory:
      return method == (r.action == "status" ? "GET" : "POST");
    default:
      return method == "GET";
  }
}

bool admitted(endpoint e) noexcept {
  switch (e) {
    case endpoint::model_infer:
    case endpoint::model_generate:
    case endpoint::model_generate_stream:
    case endpoint::repository_index:
    case endpoint::repository_load:
    case endpoint::repository_unload:
      return true;
    default:
      return false;
  }
}

} // namespace conch::transports::http::kserve
