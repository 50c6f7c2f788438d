#include "conch/transports/http/kserve/codec/request_parameters.hpp"

#include <cstdint>
#include <string>
#include <variant>

#include "conch/runtime/request_parameters.hpp"
#include "conch/transports/http/kserve/codec/json_reader.hpp"
#include "conch/transports/protocol/request_limits.hpp"

namespace conch::transports::http::kserve::codec {

namespace {

using runtime::status;

// A JSON value as the runtime reads a request parameter: an integer is an
// int64_t when it fits one and a uint64_t above that; any other number is a
// double; arrays, objects and null are unsupported.
runtime::request_parameter_value value_of(const rapidjson::Value& v) {
  if (v.IsString())
    return string_of(v);
  if (v.IsBool())
    return v.GetBool();
  if (v.IsInt64())
    return static_cast<int64_t>(v.GetInt64());
  if (v.IsUint64())
    return static_cast<uint64_t>(v.GetUint64());
  if (v.IsNumber())
    return v.GetDouble();
  return runtime::unsupported_parameter_value{};
}

// 0 or "": what HTTP reads as "no sequence" in sequence_id.
bool no_sequence(const runtime::request_parameter_value& value) {
  if (const auto* s = std::get_if<std::string_view>(&value))
    return s->empty();
  if (const auto* i = std::get_if<int64_t>(&value))
    return *i == 0;
  return false;
}

const char* expectation(runtime::expected_parameter_type expected) {
  switch (expected) {
    case runtime::expected_parameter_type::unsigned_or_string:
      return "expected an unsigned integer or a string";
    case runtime::expected_parameter_type::boolean:
      return "expected a boolean";
    case runtime::expected_parameter_type::unsigned_integer:
      return "expected an unsigned integer";
  }
  return "expected an unsigned integer";
}

} // namespace

status read_request_parameter(std::string_view key, const rapidjson::Value& v,
                              decoded_infer& out) {
  // HTTP's own key; every other is the runtime's to read.
  if (key == "binary_data_output") {
    if (!v.IsBool())
      return parse_error(key, "expected a boolean");
    out.binary_data_output = v.GetBool();
    return status::ok();
  }
  auto value = value_of(v);
  // HTTP quirk, kept here: sequence_id 0 or "" means no sequence and leaves
  // the correlation id as it was (the runtime, as gRPC, would set it).
  if (no_sequence(value)
      && runtime::find_reserved_request_parameter(key)
           == runtime::reserved_request_parameter::sequence_id)
    return status::ok();
  auto applied = runtime::apply_request_parameter(key, value, out.request);
  switch (applied.outcome) {
    case runtime::request_parameter_outcome::applied:
      return status::ok();
    case runtime::request_parameter_outcome::wrong_type:
      return parse_error(key, expectation(applied.expected));
    case runtime::request_parameter_outcome::reserved_prefix:
      return runtime::invalid_argument("parameter keys starting with 'triton_' are reserved for "
                                       "Triton usage and should not be specified.");
    case runtime::request_parameter_outcome::unsupported_type:
      break;
  }
  // HTTP quirk, kept here: a custom integer beyond int64 is carried as a
  // double (a runtime parameter has no unsigned type, and gRPC refuses
  // uint64_param).
  if (const auto* big = std::get_if<uint64_t>(&value)) {
    out.request.parameters.push_back({std::string{key}, static_cast<double>(*big)});
    return status::ok();
  }
  return runtime::invalid_argument("parameter '" + std::string{key}
                                   + "' has invalid type. It should be either 'int', 'bool', "
                                     "or 'string'.");
}

status read_request_parameters(const rapidjson::Value& params, decoded_infer& out) {
  if (!params.IsObject())
    return parse_error("parameters", "expected an object");
  CONCH_RUNTIME_RETURN_IF_ERROR(
    protocol::check_parameter_count("the request", params.MemberCount()));
  for (const auto& m : params.GetObject())
    CONCH_RUNTIME_RETURN_IF_ERROR(read_request_parameter(string_of(m.name), m.value, out));
  return status::ok();
}

} // namespace conch::transports::http::kserve::codec
