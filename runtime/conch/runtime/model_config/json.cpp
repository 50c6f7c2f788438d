#include "conch/runtime/model_config/json.hpp"

#include <cstdlib>
#include <exception>

#include <google/protobuf/util/json_util.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace conch::runtime::model_config {

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;

void restore_numbers(const Descriptor* type, rapidjson::Value& object);

// Turns one printed value of field `f` back into what the field holds:
// a 64-bit integer string into a number, an object into a walked message.
void restore_value(const FieldDescriptor* f, rapidjson::Value& v) {
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64:
      if (v.IsString())
        v.SetInt64(std::strtoll(v.GetString(), nullptr, 10));
      break;
    case FieldDescriptor::CPPTYPE_UINT64:
      if (v.IsString())
        v.SetUint64(std::strtoull(v.GetString(), nullptr, 10));
      break;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (v.IsObject())
        restore_numbers(f->message_type(), v);
      break;
    default:
      break;
  }
}

void restore_field(const FieldDescriptor* f, rapidjson::Value& v) {
  if (f->is_map()) {
    // Keys are JSON object names and must stay strings; only values change.
    const auto* value_field = f->message_type()->map_value();
    if (v.IsObject())
      for (auto& member : v.GetObject())
        restore_value(value_field, member.value);
  } else if (f->is_repeated()) {
    if (v.IsArray())
      for (auto& element : v.GetArray())
        restore_value(f, element);
  } else {
    restore_value(f, v);
  }
}

void restore_numbers(const Descriptor* type, rapidjson::Value& object) {
  for (auto& member : object.GetObject()) {
    // preserve_proto_field_names makes every member name a proto field name.
    if (const auto* f = type->FindFieldByName(member.name.GetString()))
      restore_field(f, member.value);
  }
}

} // namespace

std::string to_json(const inference::ModelConfig& config) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string printed;
  if (!google::protobuf::util::MessageToJsonString(config, &printed, options).ok())
    return {};
  // Protobuf's own printing of a typed message: shallow, but parsed
  // iteratively like every other JSON the server reads.
  rapidjson::Document doc;
  if (doc.Parse<rapidjson::kParseIterativeFlag>(printed.data(), printed.size()).HasParseError()
      || !doc.IsObject())
    return {};
  restore_numbers(config.GetDescriptor(), doc);
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> writer(out);
  doc.Accept(writer);
  return {out.GetString(), out.GetSize()};
}

result<inference::ModelConfig> from_json(std::string_view json) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  // Triton accepts "type_fp32" as well as "TYPE_FP32"; so do we.
  options.case_insensitive_enum_parsing = true;
  inference::ModelConfig config;
  try {
    auto parsed = google::protobuf::util::JsonStringToMessage(
        google::protobuf::StringPiece(json.data(), json.size()), &config, options);
    if (!parsed.ok())
      return invalid_argument("invalid model configuration JSON: " +
                              std::string(parsed.message()));
  } catch (const std::exception& e) {
    return internal_error(std::string("invalid model configuration JSON: ") + e.what());
  }
  return config;
}

} // namespace conch::runtime::model_config
