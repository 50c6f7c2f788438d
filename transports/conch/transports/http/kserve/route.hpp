#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "conch/transports/protocol/restrictions.hpp"

namespace conch::transports::http::kserve {

/// The endpoints of the KServe v2 HTTP protocol (spec §1.2).
enum class endpoint : uint8_t {
  server_metadata,        // GET /v2
  health_live,            // GET /v2/health/live
  health_ready,           // GET /v2/health/ready
  model_metadata,         // GET /v2/models/{m}[/versions/{v}]
  model_ready,            // GET .../ready
  model_config,           // GET .../config
  model_infer,            // POST .../infer
  model_generate,         // POST .../generate
  model_generate_stream,  // POST .../generate_stream
  model_statistics,       // GET .../stats
  all_statistics,         // GET /v2/models/stats
  model_trace_setting,    // GET, POST /v2/models/{m}/trace/setting
  trace_setting,          // GET, POST /v2/trace/setting
  logging,                // GET, POST /v2/logging
  system_shared_memory,   // /v2/systemsharedmemory[/region/{r}]/{status,register,unregister}
  cuda_shared_memory,     // /v2/cudasharedmemory[/region/{r}]/{status,register,unregister}
  repository_index,       // POST /v2/repository[/{repo}]/index
  repository_load,        // POST /v2/repository[/{repo}]/models/{m}/load
  repository_unload,      // POST /v2/repository[/{repo}]/models/{m}/unload
};

/// The endpoint groups that restricted-feature options can put behind a
/// header (spec §1.18); each endpoint belongs to exactly one.
using protocol::feature;

/// A request path matched to an endpoint, with the names it carries.
struct route {
  endpoint target = endpoint::server_metadata;
  /// The model name (percent-decoded), for the model and repository endpoints.
  std::string model;
  /// The requested version; -1 when the path names none.
  int64_t version = -1;
  /// The region name of a shared-memory path; empty when none.
  std::string region;
  /// The repository name of a repository path; empty when none.
  std::string repository;
  /// The shared-memory action: "status", "register" or "unregister".
  std::string action;
};

/// The group `e` belongs to.
feature feature_of(endpoint e) noexcept;

/// True when `method` is allowed on `r` (others get 405).
bool method_allowed(const route& r, std::string_view method) noexcept;

/// True for endpoints whose answers wait on the server (inference and
/// repository changes): those count against max_inflight.
bool admitted(endpoint e) noexcept;

} // namespace conch::transports::http::kserve
