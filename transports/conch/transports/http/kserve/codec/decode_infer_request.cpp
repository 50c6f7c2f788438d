#include "conch/transports/http/kserve/codec/decode_infer_request.hpp"

#include "conch/runtime/repeated_name.hpp"
#include "conch/transports/http/kserve/codec/decode_input.hpp"
#include "conch/transports/http/kserve/codec/decode_outputs.hpp"
#include "conch/transports/http/kserve/codec/json_reader.hpp"
#include "conch/transports/http/kserve/codec/request_parameters.hpp"
#include "conch/transports/protocol/request_limits.hpp"

namespace conch::transports::http::kserve::codec {

namespace {

using runtime::status;

// Inference-Header-Content-Length: 0 makes the whole body one input's data.
void decode_raw(const request& req, decoded_infer& out) {
  out.raw_binary = true;
  out.binary_data_output = true;
  runtime::tensor t;
  t.data = req.body;
  out.request.inputs.push_back(std::move(t));
}

status decode_inputs(const rapidjson::Value& doc, binary_section& binary, decoded_infer& out) {
  const auto* inputs = find_member(doc, "inputs");
  if (inputs == nullptr)
    return parse_error("inputs", "the field is missing");
  if (!inputs->IsArray())
    return parse_error("inputs", "expected an array");
  CONCH_RUNTIME_RETURN_IF_ERROR(protocol::check_input_count(inputs->Size()));
  for (const auto& input : inputs->GetArray())
    CONCH_RUNTIME_RETURN_IF_ERROR(decode_input(input, binary, out.request.model_name, out));
  auto twice = runtime::repeated_name(out.request.inputs,
                                      [](const runtime::tensor& t) -> const std::string& {
                                        return t.name;
                                      });
  if (twice)
    return protocol::repeated_input(*twice);
  return binary.finish(out.request.model_name);
}

status decode_json(const request& req, size_t json_length, decoded_infer& out) {
  scratch_document scratch;
  auto& doc = scratch.doc();
  std::string_view text{reinterpret_cast<const char*>(req.body.data()), json_length};
  CONCH_RUNTIME_RETURN_IF_ERROR(scratch.parse(text));
  if (!doc.IsObject())
    return runtime::invalid_argument("the inference request must be a JSON object");
  CONCH_RUNTIME_RETURN_IF_ERROR(read_string(doc, "id", out.request.id));
  if (const auto* params = find_member(doc, "parameters"))
    CONCH_RUNTIME_RETURN_IF_ERROR(read_request_parameters(*params, out));
  binary_section binary{req.body, json_length};
  CONCH_RUNTIME_RETURN_IF_ERROR(decode_inputs(doc, binary, out));
  if (const auto* outputs = find_member(doc, "outputs"))
    CONCH_RUNTIME_RETURN_IF_ERROR(decode_outputs(*outputs, out));
  return status::ok();
}

} // namespace

runtime::result<decoded_infer> decode_infer_request(const request& req, std::string model_name,
                                                    int64_t model_version) {
  auto extent = read_json_header_extent(req);
  if (!extent)
    return extent.error();
  decoded_infer out;
  out.request.model_name = std::move(model_name);
  out.request.model_version = model_version;
  out.binary_request = extent->declared;
  if (extent->declared && extent->length == 0) {
    decode_raw(req, out);
    return out;
  }
  CONCH_RUNTIME_RETURN_IF_ERROR(decode_json(req, extent->length, out));
  return out;
}

} // namespace conch::transports::http::kserve::codec
