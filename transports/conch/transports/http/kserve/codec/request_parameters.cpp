#include "conch/transports/http/kserve/codec/request_parameters.hpp"

#include "conch/transports/http/kserve/codec/json_reader.hpp"
#include "conch/transports/protocol/request_limits.hpp"

namespace conch::transports::http::kserve::codec {

namespace {

using runtime::status;

status read_sequence_id(const rapidjson::Value& v, runtime::inference_request& r) {
  if (v.IsUint64()) {
    if (v.GetUint64() != 0)
      r.correlation_id = v.GetUint64();
    return status::ok();
  }
  if (v.IsString()) {
    if (v.GetStringLength() != 0)
      r.correlation_id = std::string{string_of(v)};
    return status::ok();
  }
  return parse_error("sequence_id", "expected an unsigned integer or a string");
}

status read_flag(const rapidjson::Value& v, std::string_view key, uint32_t bit, uint32_t& flags) {
  if (!v.IsBool())
    return parse_error(key, "expected a boolean");
  if (v.GetBool())
    flags |= bit;
  return status::ok();
}

status read_unsigned(const rapidjson::Value& v, std::string_view key, uint64_t& out) {
  if (!v.IsUint64())
    return parse_error(key, "expected an unsigned integer");
  out = v.GetUint64();
  return status::ok();
}

status read_custom(std::string_view key, const rapidjson::Value& v, runtime::parameter_list& out) {
  runtime::parameter p;
  p.name = std::string{key};
  if (v.IsString())
    p.value = std::string{string_of(v)};
  else if (v.IsBool())
    p.value = v.GetBool();
  else if (v.IsInt64())
    p.value = v.GetInt64();
  else if (v.IsNumber())
    p.value = v.GetDouble();
  else
    return runtime::invalid_argument("parameter '" + p.name
                                     + "' has invalid type. It should be either 'int', 'bool', "
                                       "or 'string'.");
  out.push_back(std::move(p));
  return status::ok();
}

} // namespace

status read_request_parameter(std::string_view key, const rapidjson::Value& v,
                              decoded_infer& out) {
  auto& r = out.request;
  if (key == "sequence_id")
    return read_sequence_id(v, r);
  if (key == "sequence_start")
    return read_flag(v, key, runtime::request_sequence_start, r.flags);
  if (key == "sequence_end")
    return read_flag(v, key, runtime::request_sequence_end, r.flags);
  if (key == "priority")
    return read_unsigned(v, key, r.priority);
  if (key == "timeout")
    return read_unsigned(v, key, r.timeout_us);
  if (key == "binary_data_output") {
    if (!v.IsBool())
      return parse_error(key, "expected a boolean");
    out.binary_data_output = v.GetBool();
    return status::ok();
  }
  if (key.substr(0, 7) == "triton_")
    return runtime::invalid_argument("parameter keys starting with 'triton_' are reserved for "
                                     "Triton usage and should not be specified.");
  return read_custom(key, v, r.parameters);
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
