#include "conch/runtime/shm/tensor_io.hpp"

#include <algorithm>
#include <cstring>

namespace conch::runtime::shm {

namespace {

runtime::status too_small(const std::string& name, size_t have, size_t need) {
  return runtime::invalid_argument("shared memory size specified with the request for output '"
                                   + name + "' (" + std::to_string(have)
                                   + " bytes) should be at least " + std::to_string(need)
                                   + " bytes to hold the results");
}

// A host copy of `device`, the bytes of input `name` in a CUDA region.
runtime::result<runtime::buffer> to_host(runtime::device_memory* memory, const std::string& name,
                                         const runtime::buffer& device) {
  if (memory == nullptr)
    return runtime::internal_error("input '" + name
                                   + "': no device memory provider to copy it from GPU memory");
  auto host = runtime::buffer::allocate(device.size());
  if (auto st = memory->copy(host, device); !st)
    return runtime::internal_error("input '" + name
                                   + "': failed to copy it from its CUDA shared memory region: "
                                   + st.message());
  return host;
}

} // namespace

runtime::status resolve_input(const region_registry& registry, const region_ref& ref,
                              runtime::tensor& t) {
  auto bytes = registry.resolve(ref.region, ref.offset, ref.byte_size);
  if (!bytes)
    return bytes.error();
  runtime::buffer data = std::move(*bytes);
  if (!data.host_accessible()) {
    auto host = to_host(registry.device_memory().get(), t.name, data);
    if (!host)
      return host.error();
    data = std::move(*host);
  }
  t.data = std::move(data);
  return t.validate_data();
}

runtime::result<std::shared_ptr<output_regions>>
output_regions::resolve(const region_registry& registry, const targets& wanted,
                        const std::vector<std::string>& input_regions) {
  std::shared_ptr<output_regions> out;
  auto made = [&] {
    if (!out) {
      out = std::make_shared<output_regions>();
      out->memory_ = registry.device_memory();
    }
    return out.get();
  };
  auto watch = [&](const std::string& region) {
    auto system = registry.find_system(region);
    if (!system)
      return;
    made()->watched_.push_back(std::move(system));
  };
  for (const auto& [name, ref] : wanted) {
    auto bytes = registry.resolve(ref.region, ref.offset, ref.byte_size);
    if (!bytes)
      return bytes.error();
    made()->targets_.emplace(name, std::move(*bytes));
    watch(ref.region);
  }
  for (const auto& region : input_regions)
    watch(region);
  if (out) {  // each region once
    auto& watched = out->watched_;
    std::sort(watched.begin(), watched.end());
    watched.erase(std::unique(watched.begin(), watched.end()), watched.end());
  }
  return out;
}

runtime::result<runtime::buffer> output_regions::allocate(const std::string& name, size_t size,
                                                          runtime::memory_type type,
                                                          int64_t device_id) {
  auto i = targets_.find(name);
  if (i == targets_.end())
    return runtime::cpu_allocator::instance()->allocate(name, size, type, device_id);
  const auto& target = i->second;
  if (size > target.size())
    return too_small(name, target.size(), size);
  // Device memory only to a backend that asked for that very GPU: any other
  // would read or write it as host memory.
  bool same_gpu = type == runtime::memory_type::gpu && device_id == target.device_id();
  if (target.host_accessible() || same_gpu)
    return target.slice(0, size);
  return runtime::cpu_allocator::instance()->allocate(name, size, type, device_id);
}

runtime::status output_regions::deliver(const runtime::inference_response& r) const {
  for (const auto& t : r.outputs) {
    auto i = targets_.find(t.name);
    if (i == targets_.end() || t.data.data() == i->second.data())
      continue;
    if (t.data.size() > i->second.size())
      return too_small(t.name, i->second.size(), t.data.size());
    CONCH_RUNTIME_RETURN_IF_ERROR(copy(t.name, i->second, t.data));
  }
  return runtime::status::ok();
}

runtime::status output_regions::verify() const {
  for (const auto& region : watched_)
    CONCH_RUNTIME_RETURN_IF_ERROR(region->check_intact());
  return runtime::status::ok();
}

runtime::status output_regions::copy(const std::string& name, const runtime::buffer& to,
                                     const runtime::buffer& from) const {
  if (from.empty())
    return runtime::status::ok();
  if (to.host_accessible() && from.host_accessible()) {
    std::memcpy(to.data(), from.data(), from.size());
    return runtime::status::ok();
  }
  if (!memory_)
    return runtime::internal_error("output '" + name + "' is not in host memory");
  if (auto st = memory_->copy(to, from); !st)
    return runtime::internal_error("output '" + name
                                   + "': failed to copy it into its shared memory region: "
                                   + st.message());
  return runtime::status::ok();
}

} // namespace conch::runtime::shm
