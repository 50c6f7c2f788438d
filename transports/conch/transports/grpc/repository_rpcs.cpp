// The model repository RPCs of inference_service (spec §1.12, §2.1): they
// answer from the server's callback, holding an admission ticket meanwhile.

#include <memory>

#include "conch/transports/grpc/grpc_status.hpp"
#include "conch/transports/grpc/inference_service.hpp"
#include "conch/transports/grpc/repository_parameters.hpp"

namespace conch::transports::grpc {

using protocol::feature;
using reactor = inference_service::reactor;

namespace {

runtime::status named_repository() {
  return runtime::unsupported("'repository_name' specification is not supported");
}

// Finishes `r` with the outcome of a load or unload.
transports::completion<runtime::status> finish_later(::grpc::ServerUnaryReactor* r,
                                                     protocol::admission::ticket ticket) {
  return [r, ticket = std::move(ticket)](runtime::status st) { r->Finish(to_grpc_status(st)); };
}

} // namespace

reactor* inference_service::RepositoryIndex(context* ctx,
                                            const inference::RepositoryIndexRequest* req,
                                            inference::RepositoryIndexResponse* res) {
  if (auto* r = refused(ctx, feature::model_repository))
    return r;
  if (!req->repository_name().empty())
    return finish(ctx, named_repository());
  auto ticket = limits_->admit();
  if (!ticket)
    return finish(ctx, ticket.error());
  auto* r = ctx->DefaultReactor();
  server_->repository_index(
    req->ready(), [r, res, ticket = std::move(*ticket)](
                    runtime::result<std::vector<runtime::index_entry>> index) {
      if (!index) {
        r->Finish(to_grpc_status(index.error()));
        return;
      }
      for (const auto& e : *index) {
        auto* m = res->add_models();
        m->set_name(e.name);
        m->set_version(e.version);
        m->set_state(std::string{runtime::model_state_name(e.state)});
        m->set_reason(e.reason);
      }
      r->Finish(::grpc::Status::OK);
    });
  return r;
}

reactor* inference_service::RepositoryModelLoad(context* ctx,
                                                const inference::RepositoryModelLoadRequest* req,
                                                inference::RepositoryModelLoadResponse*) {
  if (auto* r = refused(ctx, feature::model_repository))
    return r;
  if (!req->repository_name().empty())
    return finish(ctx, named_repository());
  auto request = decode_load_parameters(req->parameters());
  if (!request)
    return finish(ctx, request.error());
  auto ticket = limits_->admit();
  if (!ticket)
    return finish(ctx, ticket.error());
  auto* r = ctx->DefaultReactor();
  server_->load(req->model_name(), std::move(*request), finish_later(r, std::move(*ticket)));
  return r;
}

reactor* inference_service::RepositoryModelUnload(
  context* ctx, const inference::RepositoryModelUnloadRequest* req,
  inference::RepositoryModelUnloadResponse*) {
  if (auto* r = refused(ctx, feature::model_repository))
    return r;
  if (!req->repository_name().empty())
    return finish(ctx, named_repository());
  auto dependents = decode_unload_dependents(req->parameters());
  if (!dependents)
    return finish(ctx, dependents.error());
  auto ticket = limits_->admit();
  if (!ticket)
    return finish(ctx, ticket.error());
  auto* r = ctx->DefaultReactor();
  server_->unload(req->model_name(), *dependents, finish_later(r, std::move(*ticket)));
  return r;
}

} // namespace conch::transports::grpc
