#include "conch/transports/grpc/encode_infer_response.hpp"

#include <cstdint>
#include <limits>
#include <variant>

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

} // namespace

runtime::status encode_infer_response(const runtime::inference_response& r,
                                      inference::ModelInferResponse& out) {
  out.set_model_name(r.model_name);
  out.set_model_version(std::to_string(r.model_version));
  out.set_id(r.id);
  for (const auto& p : r.parameters)
    encode_parameter(p, (*out.mutable_parameters())[p.name]);
  uint64_t total = 0;
  for (const auto& t : r.outputs) {
    if (!t.data.empty() && !t.data.host_accessible())
      return runtime::internal_error("output '" + t.name + "' is not in host memory");
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
    out.add_raw_output_contents()->assign(reinterpret_cast<const char*>(t.data.data()),
                                          t.data.size());
  }
  return runtime::status::ok();
}

} // namespace conch::transports::grpc
