#include "conch/transports/grpc/request_parameters.hpp"

#include <cstdint>
#include <string_view>

#include "conch/runtime/request_parameters.hpp"

namespace conch::transports::grpc {

namespace {

using param = inference::InferParameter;

runtime::status type_error(const std::string& key, const char* expected) {
  return runtime::invalid_argument("invalid value type for '" + key + "' parameter, expected "
                                   + expected);
}

// An InferParameter's value as the runtime reads a request parameter; one
// with no value set is unsupported. The string views `p`'s own bytes.
runtime::request_parameter_value value_of(const param& p) {
  switch (p.parameter_choice_case()) {
    case param::kBoolParam:
      return p.bool_param();
    case param::kInt64Param:
      return static_cast<int64_t>(p.int64_param());
    case param::kUint64Param:
      return static_cast<uint64_t>(p.uint64_param());
    case param::kDoubleParam:
      return p.double_param();
    case param::kStringParam:
      return std::string_view{p.string_param()};
    default:
      return runtime::unsupported_parameter_value{};
  }
}

// The gRPC wording of what a reserved parameter must be, per key rather
// than per expected type: timeout's names only int64_param although a
// uint64_param is taken too (priority's names both). Kept as it was.
const char* expectation(runtime::reserved_request_parameter key) {
  switch (key) {
    case runtime::reserved_request_parameter::sequence_id:
      return "int64_param or string_param";
    case runtime::reserved_request_parameter::sequence_start:
    case runtime::reserved_request_parameter::sequence_end:
      return "bool_param";
    case runtime::reserved_request_parameter::priority:
      return "int64_param >= 0 or uint64_param";
    case runtime::reserved_request_parameter::timeout:
      return "int64_param >= 0";
  }
  return "int64_param >= 0";
}

runtime::status apply_one(const std::string& key, const param& p, runtime::inference_request& r) {
  // gRPC's own key (stream_messages.cpp reads its value); every other is
  // the runtime's to read.
  if (key == "triton_enable_empty_final_response")
    return p.parameter_choice_case() == param::kBoolParam ? runtime::status::ok()
                                                          : type_error(key, "bool_param");
  auto applied = runtime::apply_request_parameter(key, value_of(p), r);
  switch (applied.outcome) {
    case runtime::request_parameter_outcome::applied:
      return runtime::status::ok();
    case runtime::request_parameter_outcome::wrong_type:
      return type_error(key, expectation(applied.key));
    case runtime::request_parameter_outcome::reserved_prefix:
      return runtime::invalid_argument("parameter keys starting with 'triton_' are reserved for "
                                       "Triton usage and should not be specified.");
    case runtime::request_parameter_outcome::unsupported_type:
      break;
  }
  return runtime::invalid_argument("parameter '" + key
                                   + "' has invalid type. It should be either 'int', "
                                     "'bool', 'string' or 'double'.");
}

} // namespace

runtime::status apply_request_parameters(const parameter_map& params,
                                         runtime::inference_request& request) {
  for (const auto& [key, value] : params)
    CONCH_RUNTIME_RETURN_IF_ERROR(apply_one(key, value, request));
  return runtime::status::ok();
}

} // namespace conch::transports::grpc
