#include "conch/transports/http/kserve/shared_memory_io.hpp"

namespace conch::transports::http::kserve {

namespace {

runtime::shm::region_ref to_ref(const codec::shared_memory_ref& r) {
  return {r.region, r.offset, r.byte_size};
}

} // namespace

runtime::status resolve_shared_memory_inputs(const runtime::shm::region_registry& registry,
                                             codec::decoded_infer& decoded) {
  if (!decoded.shared_memory_inputs.empty())
    decoded.request.memory_of_client = runtime::client_memory::shared;
  for (const auto& in : decoded.shared_memory_inputs)
    CONCH_RUNTIME_RETURN_IF_ERROR(
      runtime::shm::resolve_input(registry, to_ref(in.ref), decoded.request.inputs[in.input_index]));
  return runtime::status::ok();
}

runtime::result<std::shared_ptr<runtime::shm::output_regions>>
resolve_shared_memory_outputs(const runtime::shm::region_registry& registry,
                              const codec::decoded_infer& decoded) {
  runtime::shm::output_regions::targets wanted;
  for (const auto& o : decoded.outputs)
    if (o.shared_memory)
      wanted.emplace_back(o.name, to_ref(*o.shared_memory));
  std::vector<std::string> input_regions;
  input_regions.reserve(decoded.shared_memory_inputs.size());
  for (const auto& in : decoded.shared_memory_inputs)
    input_regions.push_back(in.ref.region);
  return runtime::shm::output_regions::resolve(registry, wanted, input_regions);
}

} // namespace conch::transports::http::kserve
