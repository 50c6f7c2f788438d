#include "conch/transports/grpc/encode_infer_response.hpp"

#include <cstdint>
#include <limits>
#include <variant>

#include "conch/runtime/output_labels.hpp"
#include "conch/transports/classification/classify.hpp"

namespace conch::transports::grpc {

namespace {

void encode_parameter(const runtime::parameter& p, inference::InferParameter& out) {
  std::visit(
    [&out](const auto& v) {
      using value = std::decay_t<decltype(v)>;
      if constexpr (std::is_same_v<value, std::string>)
        out.set_string_param(v);
      else if constexpr (std::is_same_v<value, bool>)
        out.set_bool_param(v);
      else if constexpr (std::is_same_v<value, int64_t>)
        out.set_int64_param(v);
      else
        out.set_double_param(v);
    },
    p.value);
}

// The class count the client asked for output `name`; 0 for none.
uint64_t class_count(const response_encoding& how, const std::string& name) {
  for (const auto& [output, count] : how.classification)
    if (output == name)
      return count;
  return 0;
}

// The labels of output `name` in `r`; empty when it has none.
const std::vector<std::string>& labels_of(const runtime::inference_response& r,
                                          const std::string& name) {
  static const std::vector<std::string> none;
  const auto* labels = r.labels ? r.labels->find(name) : nullptr;
  return labels != nullptr ? *labels : none;
}

// Adds output `produced` of `r` to `out`; `total` counts the raw bytes.
runtime::status encode_output(const runtime::inference_response& r,
                              const runtime::tensor& produced, const response_encoding& how,
                              uint64_t& total, inference::ModelInferResponse& out) {
  if (!produced.data.empty() && !produced.data.host_accessible())
    return runtime::internal_error("output '" + produced.name + "' is not in host memory");
  const runtime::tensor* source = &produced;
  runtime::tensor classified;
  if (auto k = class_count(how, produced.name); k > 0) {
    auto c = classification::classify(produced, k, how.model_batches, labels_of(r, produced.name));
    if (!c)
      return c.error();
    classified = std::move(*c);
    source = &classified;
  }
  const auto& t = *source;
  bool in_region = how.shared_memory && how.shared_memory->contains(t.name);
  if (!in_region)
    total += t.data.size();
  if (total > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
    return runtime::invalid_argument("response has byte size exceeding the maximum of "
                                     + std::to_string(std::numeric_limits<int32_t>::max())
                                     + " bytes");
  auto* o = out.add_outputs();
  o->set_name(t.name);
  o->set_datatype(std::string{runtime::data_type_name(t.type)});
  for (auto d : t.shape)
    o->add_shape(d);
  // An output in shared memory keeps its place with an empty entry: the C++
  // client reads raw_output_contents by the index of `outputs`.
  auto* raw = out.add_raw_output_contents();
  if (!in_region)
    raw->assign(reinterpret_cast<const char*>(t.data.data()), t.data.size());
  return runtime::status::ok();
}

} // namespace

runtime::status encode_infer_response(const runtime::inference_response& r,
                                      const response_encoding& how,
                                      inference::ModelInferResponse& out) {
  if (how.shared_memory)
    CONCH_RUNTIME_RETURN_IF_ERROR(how.shared_memory->deliver(r));
  out.set_model_name(r.model_name);
  out.set_model_version(std::to_string(r.model_version));
  out.set_id(r.id);
  for (const auto& p : r.parameters)
    encode_parameter(p, (*out.mutable_parameters())[p.name]);
  uint64_t total = 0;
  for (const auto& produced : r.outputs)
    CONCH_RUNTIME_RETURN_IF_ERROR(encode_output(r, produced, how, total, out));
  if (how.shared_memory)  // the outputs' bytes were all read by now
    return how.shared_memory->verify();
  return runtime::status::ok();
}

} // namespace conch::transports::grpc
