#include "conch/runtime/validation/validate_request.hpp"

#include <string>

#include "conch/runtime/data_type.hpp"
#include "conch/runtime/repeated_name.hpp"

namespace conch::runtime::validation {

namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

const inference::ModelInput* find_input(const inference::ModelConfig& c, const std::string& n) {
  for (const auto& in : c.input())
    if (in.name() == n)
      return &in;
  return nullptr;
}

bool has_output(const inference::ModelConfig& c, const std::string& n) {
  for (const auto& out : c.output())
    if (out.name() == n)
      return true;
  return false;
}

// Compares the request's shape (without its batch dimension) to the
// configured dims, where -1 matches any size.
bool dims_match(const shape_type& shape, size_t offset,
                const google::protobuf::RepeatedField<int64_t>& dims) {
  if (shape.size() - offset != static_cast<size_t>(dims.size()))
    return false;
  for (int i = 0; i < dims.size(); ++i)
    if (dims[i] != -1 && dims[i] != shape[offset + i])
      return false;
  return true;
}

std::string dims_string(const google::protobuf::RepeatedField<int64_t>& dims, bool batched) {
  shape_type s;
  if (batched)
    s.push_back(-1);
  s.insert(s.end(), dims.begin(), dims.end());
  return shape_string(s);
}

status check_input(const tensor& t, const inference::ModelInput& in,
                   const inference::ModelConfig& config, int64_t& batch_size) {
  const auto& model = config.name();
  auto expected = static_cast<data_type>(in.data_type());
  if (t.type != expected)
    return invalid_argument("inference input " + quoted(t.name) + " data-type is "
                            + quoted(std::string{data_type_name(t.type)}) + ", but model "
                            + quoted(model) + " expects "
                            + quoted(std::string{data_type_name(expected)}));
  bool batched = config.max_batch_size() > 0;
  if (batched) {
    if (t.shape.empty())
      return invalid_argument("inference input " + quoted(t.name) + " for model " + quoted(model)
                              + " must have a batch dimension");
    if (batch_size < 0)
      batch_size = t.shape[0];
    else if (t.shape[0] != batch_size)
      return invalid_argument("inputs of model " + quoted(model)
                              + " must all have the same batch size");
  }
  const auto& dims = in.dims();
  if (!dims_match(t.shape, batched ? 1 : 0, dims))
    return invalid_argument("unexpected shape for input " + quoted(t.name) + " for model "
                            + quoted(model) + ". Expected " + dims_string(dims, batched)
                            + ", got " + shape_string(t.shape));
  return t.validate_data(model);
}

} // namespace

status validate_request(const inference_request& request, const inference::ModelConfig& config) {
  const auto& model = config.name();
  int64_t batch_size = -1;
  int required = 0;
  for (const auto& in : config.input())
    if (!in.optional())
      ++required;
  int matched_required = 0;
  if (auto twice = repeated_name(request.inputs,
                                 [](const tensor& t) -> const std::string& { return t.name; }))
    return invalid_argument("input " + quoted(std::string{*twice}) + " specified multiple times");
  for (const auto& t : request.inputs) {
    const auto* in = find_input(config, t.name);
    if (in == nullptr)
      return invalid_argument("unexpected inference input " + quoted(t.name) + " for model "
                              + quoted(model));
    if (!in->optional())
      ++matched_required;
    CONCH_RUNTIME_RETURN_IF_ERROR(check_input(t, *in, config, batch_size));
  }
  if (matched_required != required)
    return invalid_argument("expected " + std::to_string(required) + " inputs but got "
                            + std::to_string(request.inputs.size()) + " inputs for model "
                            + quoted(model));
  if (config.max_batch_size() > 0 && batch_size > config.max_batch_size())
    return invalid_argument("inference request batch-size must be <= "
                            + std::to_string(config.max_batch_size()) + " for " + quoted(model));
  if (config.max_batch_size() > 0 && batch_size < 1 && !request.inputs.empty())
    return invalid_argument("inference request batch-size must be >= 1 for " + quoted(model));
  for (const auto& name : request.requested_outputs)
    if (!has_output(config, name))
      return invalid_argument("unexpected inference output " + quoted(name) + " for model "
                              + quoted(model));
  return status::ok();
}

} // namespace conch::runtime::validation
