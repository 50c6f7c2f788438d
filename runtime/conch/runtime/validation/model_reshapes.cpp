#include "conch/runtime/validation/model_reshapes.hpp"

namespace conch::runtime::validation {

namespace {

template <class Tensor>
tensor_reshapes::rule rule_of(const Tensor& t) {
  return {shape_type(t.dims().begin(), t.dims().end()),
          shape_type(t.reshape().shape().begin(), t.reshape().shape().end())};
}

} // namespace

std::shared_ptr<const tensor_reshapes> model_reshapes(const inference::ModelConfig& config) {
  std::shared_ptr<tensor_reshapes> out;
  auto table = [&]() -> tensor_reshapes& {
    if (!out)
      out = std::make_shared<tensor_reshapes>(config.max_batch_size() > 0);
    return *out;
  };
  for (const auto& in : config.input())
    if (in.has_reshape())
      table().add_input(in.name(), rule_of(in));
  for (const auto& o : config.output())
    if (o.has_reshape())
      table().add_output(o.name(), rule_of(o));
  return out;
}

} // namespace conch::runtime::validation
