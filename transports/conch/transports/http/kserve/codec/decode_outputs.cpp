#include "conch/transports/http/kserve/codec/decode_outputs.hpp"

#include "conch/runtime/repeated_name.hpp"
#include "conch/transports/http/kserve/codec/json_reader.hpp"
#include "conch/transports/protocol/request_limits.hpp"

namespace conch::transports::http::kserve::codec {

namespace {

using runtime::status;

status check_combinations(const rapidjson::Value& params) {
  if (find_member(params, "shared_memory_region") == nullptr)
    return status::ok();
  if (find_member(params, "classification") != nullptr)
    return runtime::invalid_argument(
      "Output can't set both 'shared_memory_region' and 'classification'");
  bool binary = false;
  CONCH_RUNTIME_RETURN_IF_ERROR(read_bool(params, "binary_data", binary));
  if (binary)
    return runtime::invalid_argument(
      "Output can't set both 'shared_memory_region' and 'binary_data'");
  return status::ok();
}

status read_parameters(const rapidjson::Value& params, output_encoding& o) {
  if (!params.IsObject())
    return parse_error("parameters", "expected an object");
  CONCH_RUNTIME_RETURN_IF_ERROR(
    protocol::check_parameter_count("output", o.name, params.MemberCount()));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_combinations(params));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_uint(params, "classification", o.classification));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_bool(params, "binary_data", o.binary));
  if (find_member(params, "shared_memory_region") != nullptr) {
    shared_memory_ref ref;
    CONCH_RUNTIME_RETURN_IF_ERROR(read_string(params, "shared_memory_region", ref.region));
    CONCH_RUNTIME_RETURN_IF_ERROR(read_uint(params, "shared_memory_offset", ref.offset));
    if (find_member(params, "shared_memory_byte_size") == nullptr)
      return parse_error("shared_memory_byte_size", "the field is missing");
    CONCH_RUNTIME_RETURN_IF_ERROR(read_uint(params, "shared_memory_byte_size", ref.byte_size));
    o.shared_memory = std::move(ref);
  }
  return status::ok();
}

status decode_output(const rapidjson::Value& output, decoded_infer& out) {
  if (!output.IsObject())
    return parse_error("outputs", "expected an array of objects");
  output_encoding o;
  CONCH_RUNTIME_RETURN_IF_ERROR(require_string(output, "name", o.name));
  if (const auto* params = find_member(output, "parameters"))
    CONCH_RUNTIME_RETURN_IF_ERROR(read_parameters(*params, o));
  out.request.requested_outputs.push_back(o.name);
  out.outputs.push_back(std::move(o));
  return status::ok();
}

} // namespace

status decode_outputs(const rapidjson::Value& outputs, decoded_infer& out) {
  if (!outputs.IsArray())
    return parse_error("outputs", "expected an array");
  CONCH_RUNTIME_RETURN_IF_ERROR(protocol::check_output_count(outputs.Size()));
  for (const auto& o : outputs.GetArray())
    CONCH_RUNTIME_RETURN_IF_ERROR(decode_output(o, out));
  // An output named twice is requested once, with its first settings, as
  // Triton takes it.
  runtime::keep_first_of_each_name(
    out.outputs, [](const output_encoding& o) -> const std::string& { return o.name; });
  runtime::keep_first_of_each_name(out.request.requested_outputs,
                                   [](const std::string& n) -> const std::string& { return n; });
  return status::ok();
}

} // namespace conch::transports::http::kserve::codec
