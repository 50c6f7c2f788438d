#include "conch/transports/grpc/request_parameters.hpp"

namespace conch::transports::grpc {

namespace {

using param = inference::InferParameter;

runtime::status type_error(const std::string& key, const char* expected) {
  return runtime::invalid_argument("invalid value type for '" + key + "' parameter, expected "
                                   + expected);
}

// int64_param >= 0 or uint64_param, as an unsigned value.
bool unsigned_value(const param& p, uint64_t& out) {
  if (p.parameter_choice_case() == param::kUint64Param) {
    out = p.uint64_param();
    return true;
  }
  if (p.parameter_choice_case() == param::kInt64Param && p.int64_param() >= 0) {
    out = static_cast<uint64_t>(p.int64_param());
    return true;
  }
  return false;
}

runtime::status apply_flag(const std::string& key, const param& p, uint32_t bit,
                           runtime::inference_request& r) {
  if (p.parameter_choice_case() != param::kBoolParam)
    return type_error(key, "bool_param");
  if (p.bool_param())
    r.flags |= bit;
  return runtime::status::ok();
}

runtime::status apply_sequence_id(const param& p, runtime::inference_request& r) {
  uint64_t id = 0;
  if (p.parameter_choice_case() == param::kStringParam)
    r.correlation_id = p.string_param();
  else if (unsigned_value(p, id))
    r.correlation_id = id;
  else
    return type_error("sequence_id", "int64_param or string_param");
  return runtime::status::ok();
}

runtime::status apply_custom(const std::string& key, const param& p,
                             runtime::inference_request& r) {
  switch (p.parameter_choice_case()) {
    case param::kBoolParam:
      r.parameters.push_back({key, p.bool_param()});
      break;
    case param::kInt64Param:
      r.parameters.push_back({key, p.int64_param()});
      break;
    case param::kStringParam:
      r.parameters.push_back({key, p.string_param()});
      break;
    case param::kDoubleParam:
      r.parameters.push_back({key, p.double_param()});
      break;
    default:
      return runtime::invalid_argument("parameter '" + key
                                       + "' has invalid type. It should be either 'int', "
                                         "'bool', 'string' or 'double'.");
  }
  return runtime::status::ok();
}

runtime::status apply_one(const std::string& key, const param& p, runtime::inference_request& r) {
  if (key == "sequence_id")
    return apply_sequence_id(p, r);
  if (key == "sequence_start")
    return apply_flag(key, p, runtime::request_sequence_start, r);
  if (key == "sequence_end")
    return apply_flag(key, p, runtime::request_sequence_end, r);
  if (key == "priority")
    return unsigned_value(p, r.priority) ? runtime::status::ok()
                                         : type_error(key, "int64_param >= 0 or uint64_param");
  if (key == "timeout")
    return unsigned_value(p, r.timeout_us) ? runtime::status::ok()
                                           : type_error(key, "int64_param >= 0");
  if (key == "triton_enable_empty_final_response")
    return p.parameter_choice_case() == param::kBoolParam ? runtime::status::ok()
                                                          : type_error(key, "bool_param");
  if (key.rfind("triton_", 0) == 0)
    return runtime::invalid_argument("parameter keys starting with 'triton_' are reserved for "
                                     "Triton usage and should not be specified.");
  return apply_custom(key, p, r);
}

} // namespace

runtime::status apply_request_parameters(const parameter_map& params,
                                         runtime::inference_request& request) {
  for (const auto& [key, value] : params)
    CONCH_RUNTIME_RETURN_IF_ERROR(apply_one(key, value, request));
  return runtime::status::ok();
}

} // namespace conch::transports::grpc
