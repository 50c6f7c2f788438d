#include "conch/runtime/tensor_reshape.hpp"

#include <cstddef>

namespace conch::runtime {

bool tensor_reshapes::fits(const shape_type& shape, bool batched,
                           const shape_type& dims) noexcept {
  const size_t offset = batched ? 1 : 0;
  if (shape.size() != dims.size() + offset)
    return false;
  for (size_t i = 0; i < dims.size(); ++i)
    if (dims[i] != -1 && dims[i] != shape[i + offset])
      return false;
  return true;
}

shape_type tensor_reshapes::convert(const shape_type& shape, bool batched, const shape_type& from,
                                    const shape_type& to) {
  const size_t offset = batched && !shape.empty() ? 1 : 0;
  std::vector<int64_t> variable;
  for (size_t i = 0; i < from.size() && i + offset < shape.size(); ++i)
    if (from[i] == -1)
      variable.push_back(shape[i + offset]);
  shape_type out;
  out.reserve(to.size() + offset);
  if (offset == 1)
    out.push_back(shape[0]);
  size_t next = 0;
  for (auto d : to) {
    if (d == -1)
      out.push_back(next < variable.size() ? variable[next++] : -1);
    else
      out.push_back(d);
  }
  return out;
}

void tensor_reshapes::to_backend(std::vector<tensor>& inputs) const {
  if (inputs_.empty())
    return;
  for (auto& t : inputs) {
    auto it = inputs_.find(t.name);
    if (it != inputs_.end())
      t.shape = convert(t.shape, batched_, it->second.dims, it->second.reshape);
  }
}

void tensor_reshapes::inputs_to_client(std::vector<tensor>& inputs) const {
  if (inputs_.empty())
    return;
  for (auto& t : inputs) {
    auto it = inputs_.find(t.name);
    if (it != inputs_.end())
      t.shape = convert(t.shape, batched_, it->second.reshape, it->second.dims);
  }
}

status tensor_reshapes::to_client(std::vector<tensor>& outputs, std::string_view model) const {
  if (outputs_.empty())
    return status::ok();
  for (auto& t : outputs) {
    auto it = outputs_.find(t.name);
    if (it == outputs_.end())
      continue;
    const auto& r = it->second;
    if (fits(t.shape, batched_, r.reshape)) {
      t.shape = convert(t.shape, batched_, r.reshape, r.dims);
      continue;
    }
    if (fits(t.shape, batched_, r.dims))
      continue;
    shape_type reshape = r.reshape, dims = r.dims;
    if (batched_) {
      reshape.insert(reshape.begin(), -1);
      dims.insert(dims.begin(), -1);
    }
    return internal_error("output '" + t.name + "' of model '" + std::string{model}
                          + "' has shape " + shape_string(t.shape) + ", which is neither its reshape "
                          + shape_string(reshape) + " nor its dims " + shape_string(dims));
  }
  return status::ok();
}

} // namespace conch::runtime
