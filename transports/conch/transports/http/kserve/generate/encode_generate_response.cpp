#include "conch/transports/http/kserve/generate/encode_generate_response.hpp"

#include <variant>

#include "conch/transports/http/kserve/codec/json_tensor_write.hpp"
#include "conch/transports/http/kserve/codec/json_writer.hpp"

namespace conch::transports::http::kserve {

namespace {

using codec::json_writer;
using codec::write_parameter;
using codec::write_string;

runtime::status write_output(json_writer& w, const runtime::tensor& t) {
  if (!t.data.host_accessible())
    return runtime::internal_error("output '" + t.name + "' is not in host memory");
  std::string array;
  codec::string_output stream{array};
  json_writer inner{stream};
  CONCH_RUNTIME_RETURN_IF_ERROR(codec::write_json_tensor_data(inner, t));
  write_string(w, t.name);
  if (runtime::element_count(t.shape) == 1 && array.size() > 2) {
    // One element: the scalar inside the brackets.
    auto type = t.type == runtime::data_type::bytes ? rapidjson::kStringType
                                                    : rapidjson::kNumberType;
    w.RawValue(array.data() + 1, array.size() - 2, type);
  } else {
    w.RawValue(array.data(), array.size(), rapidjson::kArrayType);
  }
  return runtime::status::ok();
}

} // namespace

runtime::result<std::string> encode_generate_response(const runtime::inference_response& r) {
  std::string out;
  codec::string_output stream{out};
  json_writer w{stream};
  w.StartObject();
  if (!r.id.empty()) {
    w.Key("id");
    write_string(w, r.id);
  }
  w.Key("model_name");
  write_string(w, r.model_name);
  w.Key("model_version");
  write_string(w, std::to_string(r.model_version));
  for (const auto& t : r.outputs)
    CONCH_RUNTIME_RETURN_IF_ERROR(write_output(w, t));
  for (const auto& p : r.parameters)
    write_parameter(w, p);
  w.EndObject();
  return out;
}

std::string generate_error_json(const std::string& message) {
  std::string out;
  codec::string_output stream{out};
  json_writer w{stream};
  w.StartObject();
  w.Key("error");
  write_string(w, message);
  w.EndObject();
  return out;
}

} // namespace conch::transports::http::kserve
