#include "conch/transports/shm/tensor_io.hpp"

#include <cstring>

namespace conch::transports::shm {

namespace {

runtime::status too_small(const std::string& name, size_t have, size_t need) {
  return runtime::invalid_argument("shared memory size specified with the request for output '"
                                   + name + "' (" + std::to_string(have)
                                   + " bytes) should be at least " + std::to_string(need)
                                   + " bytes to hold the results");
}

} // namespace

runtime::status resolve_input(const region_registry& registry, const region_ref& ref,
                              runtime::tensor& t) {
  auto bytes = registry.resolve(ref.region, ref.offset, ref.byte_size);
  if (!bytes)
    return bytes.error();
  t.data = std::move(*bytes);
  return t.validate_data();
}

runtime::result<std::shared_ptr<output_regions>>
output_regions::resolve(const region_registry& registry, const targets& wanted) {
  std::shared_ptr<output_regions> out;
  for (const auto& [name, ref] : wanted) {
    auto bytes = registry.resolve(ref.region, ref.offset, ref.byte_size);
    if (!bytes)
      return bytes.error();
    if (!out)
      out = std::make_shared<output_regions>();
    out->targets_.emplace(name, std::move(*bytes));
  }
  return out;
}

runtime::result<runtime::buffer> output_regions::allocate(const std::string& name, size_t size,
                                                          runtime::memory_type type,
                                                          int64_t device_id) {
  auto i = targets_.find(name);
  if (i == targets_.end())
    return runtime::cpu_allocator::instance()->allocate(name, size, type, device_id);
  if (size > i->second.size())
    return too_small(name, i->second.size(), size);
  return i->second.slice(0, size);
}

runtime::status output_regions::deliver(const runtime::inference_response& r) const {
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

} // namespace conch::transports::shm
