#pragma once

#include <memory>
#include <string_view>

#include "conch/transports/http/cloud/sagemaker_models.hpp"
#include "conch/transports/http/kserve/kserve_handler.hpp"
#include "conch/transports/http/request.hpp"
#include "conch/transports/http/responder.hpp"

namespace conch::transports::http::cloud {

/// What the multi-model routes work with: the KServe handler (its server,
/// restrictions and admission) and the models loaded through them.
struct sagemaker_mme {
  std::shared_ptr<kserve::kserve_handler> kserve;
  std::shared_ptr<sagemaker_models> models;
};

/// Serves SageMaker's multi-model endpoint contract, as Triton's SageMaker
/// frontend does (`/models(?:/)?([^/]+)?(/invoke)?`):
///  - GET /models lists the loaded models, GET /models/{name} one of them
///    (404, no body, for a name not loaded);
///  - POST /models loads {"model_name", "url"} (X-Amzn-SageMaker-Target-Model
///    names the model on the server when given): the url's repository is
///    registered and the model loaded; 409 when it is registered already,
///    507 when loading failed for want of memory, 400 otherwise;
///  - DELETE /models/{name} unloads it (the server's model recorded at load
///    time, with the models only it needed) and unregisters its repository;
///  - POST /models/{name}/invoke runs it (the header names the server's model
///    when given), as /invocations does; errors are 400, or 507 for want of
///    memory, as Triton answers them, except 503 and 429 for a busy or
///    stopping server and 403 for a restricted one.
/// The routes other than invoke belong to the model-repository feature.
void serve_models(const sagemaker_mme& mme, request_ptr req, responder res);

/// True when `message` says a load or a request failed for want of memory
/// (the error texts Triton's SageMaker frontend answers 507 for).
bool out_of_memory(std::string_view message);

} // namespace conch::transports::http::cloud
