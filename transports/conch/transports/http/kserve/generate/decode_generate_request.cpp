#include "conch/transports/http/kserve/generate/decode_generate_request.hpp"

#include <string_view>

#include <rapidjson/document.h>

#include "conch/runtime/data_type.hpp"
#include "conch/transports/http/kserve/codec/json_reader.hpp"
#include "conch/transports/http/kserve/codec/json_tensor_data.hpp"
#include "conch/transports/http/kserve/codec/request_parameters.hpp"
#include "conch/transports/http/kserve/json_body.hpp"

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

status add_input(const inference::ModelInput& in, const rapidjson::Value& value, bool batching,
                 runtime::inference_request& out) {
  const auto& name = in.name();
  if (out.input(name) != nullptr)
    return runtime::invalid_argument("input '" + name + "' is given more than once");
  auto type = runtime::parse_config_type(inference::DataType_Name(in.data_type()));
  if (!type)
    return runtime::invalid_argument("input '" + name + "' has no usable data type");
  rapidjson::Document elements(rapidjson::kArrayType);
  if (value.IsArray()) {
    for (const auto& e : value.GetArray())
      if (e.IsArray() || e.IsObject())
        return runtime::invalid_argument("input '" + name
                                         + "' must be a scalar or a 1-D array");
    elements.CopyFrom(value, elements.GetAllocator());
  } else if (value.IsObject() || value.IsNull()) {
    return runtime::invalid_argument("input '" + name + "' must be a scalar or a 1-D array");
  } else {
    elements.PushBack(rapidjson::Value{value, elements.GetAllocator()}, elements.GetAllocator());
  }
  auto count = static_cast<int64_t>(elements.Size());
  auto bytes = codec::read_json_tensor_data(elements, *type, count, name);
  if (!bytes)
    return bytes.error();
  out.inputs.push_back(runtime::tensor{name, *type, shape_for(in, batching, count),
                                       std::move(*bytes)});
  return status::ok();
}

// Sorts one member: an input, or a parameter (copied into `params`).
status take_member(const inference::ModelConfig& config, const rapidjson::Value::Member& m,
                   rapidjson::Document& params, runtime::inference_request& out) {
  auto name = codec::string_of(m.name);
  if (const auto* in = find_input(config, name))
    return add_input(*in, m.value, config.max_batch_size() > 0, out);
  auto& a = params.GetAllocator();
  params.AddMember(rapidjson::Value{m.name, a}, rapidjson::Value{m.value, a}, a);
  return status::ok();
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
  rapidjson::Document params(rapidjson::kObjectType);
  for (const auto& m : doc.GetObject()) {
    auto name = codec::string_of(m.name);
    if (name == "id") {
      CONCH_RUNTIME_RETURN_IF_ERROR(codec::read_string(doc, "id", out.request.id));
    } else if (name == "parameters") {
      if (!m.value.IsObject())
        return codec::parse_error("parameters", "expected an object");
      for (const auto& p : m.value.GetObject())
        CONCH_RUNTIME_RETURN_IF_ERROR(take_member(config, p, params, out.request));
    } else {
      CONCH_RUNTIME_RETURN_IF_ERROR(take_member(config, m, params, out.request));
    }
  }
  CONCH_RUNTIME_RETURN_IF_ERROR(codec::read_request_parameters(params, out));
  return std::move(out.request);
}

} // namespace conch::transports::http::kserve
