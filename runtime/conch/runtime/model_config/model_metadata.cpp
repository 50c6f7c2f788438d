#include "conch/runtime/model_config/model_metadata.hpp"

#include "conch/runtime/data_type.hpp"

namespace conch::runtime {

namespace {

template <class Tensor>
tensor_metadata describe(const Tensor& t, bool batched) {
  tensor_metadata out;
  out.name = t.name();
  out.datatype = data_type_name(static_cast<data_type>(t.data_type()));
  if (batched)
    out.shape.push_back(-1);
  out.shape.insert(out.shape.end(), t.dims().begin(), t.dims().end());
  return out;
}

} // namespace

model_metadata make_model_metadata(const inference::ModelConfig& config,
                                   const std::vector<int64_t>& versions) {
  model_metadata out;
  out.name = config.name();
  for (auto v : versions)
    out.versions.push_back(std::to_string(v));
  // Triton reports the backend name when a model has no platform.
  out.platform = config.platform().empty() ? config.backend() : config.platform();
  bool batched = config.max_batch_size() > 0;
  for (const auto& in : config.input())
    out.inputs.push_back(describe(in, batched));
  for (const auto& o : config.output())
    out.outputs.push_back(describe(o, batched));
  return out;
}

} // namespace conch::runtime
