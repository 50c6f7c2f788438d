#pragma once

#include "conch/transports/http/kserve/route_call.hpp"

// The KServe v2 HTTP endpoints, one file each under routes/. Each answers
// through call.res, now (on the loop thread) or later (from the server's
// threads), and never blocks.

namespace conch::transports::http::kserve {

/// GET /v2/health/live and /v2/health/ready: 200 or 400, no body.
void serve_health(route_call&& call);

/// GET /v2: name, version and extensions.
void serve_server_metadata(route_call&& call);

/// GET /v2/models/{m}[/versions/{v}].
void serve_model_metadata(route_call&& call);

/// GET .../ready: 200 empty; 400 "Model version not ready"; 404 unknown model.
void serve_model_ready(route_call&& call);

/// GET .../config: the normalised configuration as protobuf JSON.
void serve_model_config(route_call&& call);

/// POST .../infer.
void serve_infer(route_call&& call);

/// GET /v2/models/stats and .../stats.
void serve_statistics(route_call&& call);

/// POST /v2/repository/index.
void serve_repository_index(route_call&& call);

/// POST /v2/repository/models/{m}/load.
void serve_repository_load(route_call&& call);

/// POST /v2/repository/models/{m}/unload.
void serve_repository_unload(route_call&& call);

/// GET and POST /v2/logging.
void serve_logging(route_call&& call);

/// GET and POST of the trace settings, global or a model's.
void serve_trace(route_call&& call);

/// /v2/systemsharedmemory[/region/{r}]/{status,register,unregister}.
void serve_system_shared_memory(route_call&& call);

/// /v2/cudasharedmemory[/region/{r}]/{status,register,unregister}: CUDA
/// IPC regions on a server with GPUs; without, register is refused, status
/// lists none and unregister succeeds.
void serve_cuda_shared_memory(route_call&& call);

/// POST .../generate: one JSON object in, one out (spec §1.17).
void serve_generate(route_call&& call);

/// POST .../generate_stream: one JSON object in, server-sent events out.
void serve_generate_stream(route_call&& call);

} // namespace conch::transports::http::kserve
