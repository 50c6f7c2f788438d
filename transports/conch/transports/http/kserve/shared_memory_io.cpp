#include "conch/transports/http/kserve/shared_memory_io.hpp"

#include <cstring>

namespace conch::transports::http::kserve {

namespace {

runtime::status too_small(const std::string& name, size_t have, size_t need) {
  return runtime::invalid_argument("shared memory size specified with the request for output '"
                                   + name + "' (" + std::to_string(have)
                                   + " bytes) should be at least " + std::to_string(need)
                                   + " bytes to hold the results");
}

} // namespace

runtime::status resolve_shared_memory_inputs(const shm::region_registry& registry,
                                             codec::decoded_infer& decoded) {
  for (const auto& in : decoded.shared_memory_inputs) {
    auto bytes = registry.resolve(in.ref.region, in.ref.offset, in.ref.byte_size);
    if (!bytes)
      return bytes.error();
    auto& t = decoded.request.inputs[in.input_index];
    t.data = std::move(*bytes);
    CONCH_RUNTIME_RETURN_IF_ERROR(t.validate_data());
  }
  return runtime::status::ok();
}

runtime::result<std::shared_ptr<shared_memory_outputs>>
shared_memory_outputs::resolve(const shm::region_registry& registry,
                               const codec::decoded_infer& decoded) {
  std::shared_ptr<shared_memory_outputs> out;
  for (const auto& o : decoded.outputs) {
    if (!o.shared_memory)
      continue;
    const auto& ref = *o.shared_memory;
    auto bytes = registry.resolve(ref.region, ref.offset, ref.byte_size);
    if (!bytes)
      return bytes.error();
    if (!out)
      out = std::make_shared<shared_memory_outputs>();
    out->targets_.emplace(o.name, std::move(*bytes));
  }
  return out;
}

runtime::result<runtime::buffer> shared_memory_outputs::allocate(const std::string& name,
                                                                 size_t size,
                                                                 runtime::memory_type type,
                                                                 int64_t device_id) {
  auto i = targets_.find(name);
  if (i == targets_.end())
    return runtime::cpu_allocator::instance()->allocate(name, size, type, device_id);
  if (size > i->second.size())
    return too_small(name, i->second.size(), size);
  return i->second.slice(0, size);
}

runtime::status shared_memory_outputs::deliver(const runtime::inference_response& r) const {
  for (const auto& t : r.outputs) {
    auto i = targets_.find(t.name);
    if (i == targets_.end() || t.data.data() == i->second.data())
      continue;
    if (t.data.size() > i->second.size())
      return too_small(t.name, i->second.size(), t.data.size());
    if (!t.data.host_accessible())
      return runtime::internal_error("output '" + t.name + "' is not in host memory");
    if (!t.data.empty())
      std::memcpy(i->second.data(), t.data.data(), t.data.size());
  }
  return runtime::status::ok();
}

} // namespace conch::transports::http::kserve
