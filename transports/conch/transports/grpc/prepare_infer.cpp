#include "conch/transports/grpc/prepare_infer.hpp"

#include "conch/transports/grpc/decode_infer_request.hpp"
#include "conch/transports/grpc/model_version.hpp"

namespace conch::transports::grpc {

namespace {

// Resolves the shared-memory inputs and outputs of `decoded`.
runtime::status resolve_shared_memory(const runtime::shm::region_registry& regions,
                                      decoded_infer& decoded, response_encoding& how) {
  for (const auto& [index, ref] : decoded.shared_memory_inputs)
    CONCH_RUNTIME_RETURN_IF_ERROR(runtime::shm::resolve_input(regions, ref, decoded.request.inputs[index]));
  runtime::shm::output_regions::targets wanted;
  for (const auto& o : decoded.outputs)
    if (o.shared_memory)
      wanted.emplace_back(o.name, *o.shared_memory);
  std::vector<std::string> input_regions;
  input_regions.reserve(decoded.shared_memory_inputs.size());
  for (const auto& in : decoded.shared_memory_inputs)
    input_regions.push_back(in.second.region);
  auto outputs = runtime::shm::output_regions::resolve(regions, wanted, input_regions);
  if (!outputs)
    return outputs.error();
  how.shared_memory = std::move(*outputs);
  if (how.shared_memory) {
    decoded.request.allocator = how.shared_memory;
    decoded.request.memory_of_client = runtime::client_memory::shared;
  }
  return runtime::status::ok();
}

// True when `decoded` names a shared-memory region for an input or an output.
bool names_shared_memory(const decoded_infer& decoded) {
  if (!decoded.shared_memory_inputs.empty())
    return true;
  for (const auto& o : decoded.outputs)
    if (o.shared_memory)
      return true;
  return false;
}

} // namespace

runtime::result<prepared_infer> prepare_infer(gateway& server,
                                              inference::ModelInferRequest& message,
                                              bool allow_decoupled, protocol::client_shm shm) {
  auto version = parse_model_version(message.model_version());
  if (!version)
    return version.error();
  auto model = server.resolve(message.model_name(), *version);
  if (!model)
    return model.error();
  const auto& config = *(*model)->config;
  prepared_infer out;
  out.model = std::move(*model);
  out.decoupled = config.model_transaction_policy().decoupled();
  if (out.decoupled && !allow_decoupled)
    return runtime::unsupported(
      "ModelInfer RPC doesn't support models with decoupled transaction policy");
  auto decoded = decode_infer_request(message, *version);
  if (!decoded)
    return decoded.error();
  out.encoding.model_batches = config.max_batch_size() > 0;
  for (const auto& o : decoded->outputs)
    if (o.classification > 0)
      out.encoding.classification.emplace_back(o.name, o.classification);
  if (shm == protocol::client_shm::denied && names_shared_memory(*decoded))
    return protocol::client_shm_disabled();
  if (!decoded->shared_memory_inputs.empty() || !decoded->outputs.empty()) {
    auto regions = server.shared_memory();
    CONCH_RUNTIME_RETURN_IF_ERROR(resolve_shared_memory(*regions, *decoded, out.encoding));
  }
  out.request = std::move(decoded->request);
  return out;
}

} // namespace conch::transports::grpc
