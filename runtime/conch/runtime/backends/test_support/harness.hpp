#pragma once

// Test support for backend unit tests: configurations built in code, models
// loaded through the registry, jobs whose responses are recorded. Header-only
// and linked into tests only.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "conch/runtime/backends/registry.hpp"
#include "conch/runtime/bytes_elements.hpp"
#include "conch/runtime/inference_job.hpp"

namespace conch::runtime::backends::test_support {

/// A configuration for `backend` named `name`.
inline inference::ModelConfig make_config(const std::string& name, const std::string& backend) {
  inference::ModelConfig config;
  config.set_name(name);
  config.set_backend(backend);
  return config;
}

/// Appends an input to `config`.
inline void add_input(inference::ModelConfig& config, const std::string& name,
                      inference::DataType type, std::vector<int64_t> dims = {-1}) {
  auto* in = config.add_input();
  in->set_name(name);
  in->set_data_type(type);
  for (auto d : dims)
    in->add_dims(d);
}

/// Appends an output to `config`.
inline void add_output(inference::ModelConfig& config, const std::string& name,
                       inference::DataType type, std::vector<int64_t> dims = {-1}) {
  auto* out = config.add_output();
  out->set_name(name);
  out->set_data_type(type);
  for (auto d : dims)
    out->add_dims(d);
}

/// Sets model parameter `key` to the string `value`.
inline void set_parameter(inference::ModelConfig& config, const std::string& key,
                          const std::string& value) {
  (*config.mutable_parameters())[key].set_string_value(value);
}

/// A model loaded through the global registry, with one instance.
struct loaded_model {
  std::unique_ptr<backend_model> model;
  std::unique_ptr<backend_instance> instance;
};

/// Resolves, loads and instantiates `config` through registry::global(),
/// with `models` as the server's other models (for ensembles).
inline result<loaded_model> load(const inference::ModelConfig& config,
                                 std::shared_ptr<model_gateway> models = nullptr) {
  auto entry = registry::global().resolve(config);
  if (!entry)
    return entry.error();
  model_context ctx;
  ctx.config = std::make_shared<const inference::ModelConfig>(config);
  ctx.name = config.name();
  ctx.version = 1;
  ctx.models = std::move(models);
  auto model = entry->factory(ctx);
  if (!model)
    return model.error();
  auto instance = (*model)->create_instance(instance_context{config.name() + "_0"});
  if (!instance)
    return instance.error();
  return loaded_model{std::move(*model), std::move(*instance)};
}

/// The responses one job received, in order.
struct response_log {
  std::vector<inference_response> responses;
};

/// A job for `request` whose responses are appended to `log`.
inline job_ptr make_job(inference_request request, std::shared_ptr<response_log> log) {
  return std::make_shared<inference_job>(
    std::move(request), [log](inference_response&& r) { log->responses.push_back(std::move(r)); });
}

/// A host tensor holding `values` as raw bytes.
template <class T>
tensor make_tensor(const std::string& name, data_type type, shape_type shape,
                   const std::vector<T>& values) {
  return tensor{name, type, std::move(shape),
                buffer::copy_of(values.data(), values.size() * sizeof(T))};
}

/// A host BYTES tensor of shape [n] holding `elements`.
inline tensor make_bytes_tensor(const std::string& name,
                                const std::vector<std::string_view>& elements) {
  return tensor{name, data_type::bytes, {static_cast<int64_t>(elements.size())},
                serialize_bytes_elements(elements)};
}

/// The bytes of a host tensor.
inline std::vector<std::byte> bytes_of(const tensor& t) {
  return {t.data.data(), t.data.data() + t.data.size()};
}

/// The elements of a host tensor of a fixed-size type.
template <class T>
std::vector<T> values_of(const tensor& t) {
  std::vector<T> out(t.data.size() / sizeof(T));
  if (!out.empty())
    std::memcpy(out.data(), t.data.data(), out.size() * sizeof(T));
  return out;
}

/// The output called `name` of `r`, or nullptr.
inline const tensor* output(const inference_response& r, const std::string& name) {
  for (const auto& t : r.outputs)
    if (t.name == name)
      return &t;
  return nullptr;
}

/// An allocator that serves host memory and records what it was asked for.
class recording_allocator final : public response_allocator {
 public:
  result<buffer> allocate(const std::string& name, size_t size, memory_type type,
                          int64_t device_id) override {
    names.push_back(name);
    types.push_back(type);
    devices.push_back(device_id);
    return buffer::allocate(size);
  }

  std::vector<std::string> names;
  std::vector<memory_type> types;
  std::vector<int64_t> devices;
};

} // namespace conch::runtime::backends::test_support
