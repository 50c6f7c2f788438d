// The shared-memory RPCs of inference_service (spec §1.16, §2.1), over the
// server's one registry of regions, which the HTTP frontend shares. Status
// is always served; registering and unregistering only where the frontend
// allows client shared memory.

#include "conch/transports/grpc/inference_service.hpp"

namespace conch::transports::grpc {

using protocol::feature;
using reactor = inference_service::reactor;

reactor* inference_service::SystemSharedMemoryStatus(
  context* ctx, const inference::SystemSharedMemoryStatusRequest* req,
  inference::SystemSharedMemoryStatusResponse* res) {
  if (auto* r = refused(ctx, feature::shared_memory))
    return r;
  auto regions = server_->shared_memory()->system_status(req->name());
  if (!regions)
    return finish(ctx, regions.error());
  for (const auto& region : *regions) {
    auto& status = (*res->mutable_regions())[region->name()];
    status.set_name(region->name());
    status.set_key(region->key());
    status.set_offset(region->offset());
    status.set_byte_size(region->byte_size());
  }
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::SystemSharedMemoryRegister(
  context* ctx, const inference::SystemSharedMemoryRegisterRequest* req,
  inference::SystemSharedMemoryRegisterResponse*) {
  if (auto* r = refused(ctx, feature::shared_memory))
    return r;
  if (limits_->client_shm() == protocol::client_shm::denied)
    return finish(ctx, protocol::client_shm_disabled());
  if (req->name().empty())
    return finish(ctx, runtime::invalid_argument(
                         "a shared memory region name is required to register"));
  return finish(ctx, server_->shared_memory()->register_system(req->name(), req->key(),
                                                               req->offset(), req->byte_size()));
}

reactor* inference_service::SystemSharedMemoryUnregister(
  context* ctx, const inference::SystemSharedMemoryUnregisterRequest* req,
  inference::SystemSharedMemoryUnregisterResponse*) {
  if (auto* r = refused(ctx, feature::shared_memory))
    return r;
  if (limits_->client_shm() == protocol::client_shm::denied)
    return finish(ctx, protocol::client_shm_disabled());
  server_->shared_memory()->unregister_system(req->name());
  return finish(ctx, runtime::status::ok());
}

// Without GPUs (or a CUDA build) the registry refuses to register, lists no
// regions and unregisters silently.
reactor* inference_service::CudaSharedMemoryStatus(
  context* ctx, const inference::CudaSharedMemoryStatusRequest* req,
  inference::CudaSharedMemoryStatusResponse* res) {
  if (auto* r = refused(ctx, feature::shared_memory))
    return r;
  auto regions = server_->shared_memory()->cuda_status(req->name());
  if (!regions)
    return finish(ctx, regions.error());
  for (const auto& region : *regions) {
    auto& status = (*res->mutable_regions())[region->name()];
    status.set_name(region->name());
    status.set_device_id(static_cast<uint64_t>(region->device_id()));
    status.set_byte_size(region->byte_size());
  }
  return finish(ctx, runtime::status::ok());
}

reactor* inference_service::CudaSharedMemoryRegister(
  context* ctx, const inference::CudaSharedMemoryRegisterRequest* req,
  inference::CudaSharedMemoryRegisterResponse*) {
  if (auto* r = refused(ctx, feature::shared_memory))
    return r;
  if (limits_->client_shm() == protocol::client_shm::denied)
    return finish(ctx, protocol::client_shm_disabled());
  if (req->name().empty())
    return finish(ctx, runtime::invalid_argument(
                         "a shared memory region name is required to register"));
  return finish(ctx, server_->shared_memory()->register_cuda(req->name(), req->raw_handle(),
                                                             req->device_id(), req->byte_size()));
}

reactor* inference_service::CudaSharedMemoryUnregister(
  context* ctx, const inference::CudaSharedMemoryUnregisterRequest* req,
  inference::CudaSharedMemoryUnregisterResponse*) {
  if (auto* r = refused(ctx, feature::shared_memory))
    return r;
  if (limits_->client_shm() == protocol::client_shm::denied)
    return finish(ctx, protocol::client_shm_disabled());
  server_->shared_memory()->unregister_cuda(req->name());
  return finish(ctx, runtime::status::ok());
}

} // namespace conch::transports::grpc
