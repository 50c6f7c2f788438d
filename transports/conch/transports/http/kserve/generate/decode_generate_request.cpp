#include "conch/transports/http/kserve/generate/decode_generate_request.hpp"

#include <string_view>

#include <rapidjson/document.h>

#include "conch/runtime/data_type.hpp"
#include "conch/transports/http/kserve/codec/json_reader.hpp"
#include "conch/transports/http/kserve/codec/json_tensor_data.hpp"
#include "conch/transports/http/kserve/codec/request_parameters.hpp"
#include "conch/transports/http/kserve/json_body.hpp"
#include "conch/transports/protocol/request_limits.hpp"

namespace conch::transports::http::kserve {

namespace {

using runtime::status;

const inference::ModelInput* find_input(const inference::ModelConfig& config,
                                        std::string_view name) {
  for (const auto& in : config.input())
    if (in.name() == name)
      return &in;
  return nullptr;
}

// The configured dims, a batch of 1 first for a batching model, and the
// first variable dimension taking what the element count leaves.
runtime::shape_type shape_for(const inference::ModelInput& in, bool batching, int64_t count) {
  int64_t known = 1;
  for (auto d : in.dims())
    if (d >= 0)
      known *= d;
  runtime::shape_type shape;
  if (batching)
    shape.push_back(1);
  bool filled = false;
  for (auto d : in.dims()) {
    if (d >= 0)
      shape.push_back(d);
    else
      shape.push_back(filled || known == 0 ? 1 : count / known);
    filled = filled || d < 0;
  }
  return shape;
}

// A scalar becomes a one-element array; an array must hold only scalars, so
// nothing here depends on how deep the client nested anything.
status add_input(const inference::ModelInput& in, const rapidjson::Value& value, bool batching,
                 runtime::inference_request& out) {
  const auto& name = in.name();
  if (out.input(name) != nullptr)
    return runtime::invalid_argument("input '" + name + "' is given more than once");
  auto type = runtime::parse_config_type(inference::DataType_Name(in.data_type()));
  if (!type)
    return runtime::invalid_argument("input '" + name + "' has no usable data type");
  if (value.IsObject() || value.IsNull())
    return runtime::invalid_argument("input '" + name + "' must be a scalar or a 1-D array");
  rapidjson::Document scalar(rapidjson::kArrayType);
  const rapidjson::Value* elements = &value;
  if (value.IsArray()) {
    for (const auto& e : value.GetArray())
      if (e.IsArray() || e.IsObject())
        return runtime::invalid_argument("input '" + name
                                         + "' must be a scalar or a 1-D array");
  } else {
    scalar.PushBack(rapidjson::Value{value, scalar.GetAllocator()}, scalar.GetAllocator());
    elements = &scalar;
  }
  auto count = static_cast<int64_t>(elements->Size());
  auto bytes = codec::read_json_tensor_data(*elements, *type, count, name);
  if (!bytes)
    return bytes.error();
  out.inputs.push_back(runtime::tensor{name, *type, shape_for(in, batching, count),
                                       std::move(*bytes)});
  return status::ok();
}

// Sorts one member: an input, or a request parameter (counted in
// `parameters` against the limit).
status take_member(const inference::ModelConfig& config, const rapidjson::Value::Member& m,
                   size_t& parameters, codec::decoded_infer& out) {
  auto name = codec::string_of(m.name);
  if (const auto* in = find_input(config, name))
    return add_input(*in, m.value, config.max_batch_size() > 0, out.request);
  CONCH_RUNTIME_RETURN_IF_ERROR(protocol::check_parameter_count("the request", ++parameters));
  return codec::read_request_parameter(name, m.value, out);
}

} // namespace

runtime::result<runtime::inference_request>
decode_generate_request(const request& req, const inference::ModelConfig& config,
                        const std::string& model, int64_t version) {
  rapidjson::Document doc;
  CONCH_RUNTIME_RETURN_IF_ERROR(parse_json_object(req, doc));
  codec::decoded_infer out;
  out.request.model_name = model;
  out.request.model_version = version;
  size_t parameters = 0;
  for (const auto& m : doc.GetObject()) {
    auto name = codec::string_of(m.name);
    if (name == "id") {
      CONCH_RUNTIME_RETURN_IF_ERROR(codec::read_string(doc, "id", out.request.id));
    } else if (name == "parameters") {
      if (!m.value.IsObject())
        return codec::parse_error("parameters", "expected an object");
      for (const auto& p : m.value.GetObject())
        CONCH_RUNTIME_RETURN_IF_ERROR(take_member(config, p, parameters, out));
    } else {
      CONCH_RUNTIME_RETURN_IF_ERROR(take_member(config, m, parameters, out));
    }
  }
  return std::move(out.request);
}

} // namespace conch::transports::http::kserve
