#include "conch/runtime/model_config/validate_enums.hpp"

#include <vector>

#include "conch/runtime/model_config/config_error.hpp"

namespace conch::runtime::model_config {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

std::string join(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}

// The key of a map entry as it would be written in a configuration.
std::string map_key(const Message& entry) {
  const auto* key = entry.GetDescriptor()->map_key();
  const auto* refl = entry.GetReflection();
  switch (key->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      return "'" + refl->GetString(entry, key) + "'";
    case FieldDescriptor::CPPTYPE_UINT64:
      return std::to_string(refl->GetUInt64(entry, key));
    case FieldDescriptor::CPPTYPE_INT64:
      return std::to_string(refl->GetInt64(entry, key));
    case FieldDescriptor::CPPTYPE_UINT32:
      return std::to_string(refl->GetUInt32(entry, key));
    case FieldDescriptor::CPPTYPE_INT32:
      return std::to_string(refl->GetInt32(entry, key));
    default:
      return "?";
  }
}

status check_enum(const Message& m, const FieldDescriptor* f, const std::string& path,
                  const std::string& file) {
  const auto* refl = m.GetReflection();
  int n = f->is_repeated() ? refl->FieldSize(m, f) : 1;
  for (int i = 0; i < n; ++i) {
    int value = f->is_repeated() ? refl->GetRepeatedEnumValue(m, f, i) : refl->GetEnumValue(m, f);
    if (f->enum_type()->FindValueByNumber(value) == nullptr) {
      auto where = f->is_repeated() ? indexed(path, static_cast<size_t>(i)) : path;
      return config_error(file, where,
                          "unknown value " + std::to_string(value) + " for enum " +
                              f->enum_type()->full_name());
    }
  }
  return status::ok();
}

status check_messages(const Message& m, const FieldDescriptor* f, const std::string& path,
                      const std::string& file) {
  const auto* refl = m.GetReflection();
  if (!f->is_repeated())
    return validate_enum_values(refl->GetMessage(m, f), path, file);
  for (int i = 0; i < refl->FieldSize(m, f); ++i) {
    const auto& element = refl->GetRepeatedMessage(m, f, i);
    if (f->is_map()) {
      // Only the value of an entry can hold an enum; name it by its key.
      const auto* value = element.GetDescriptor()->map_value();
      auto where = path + "[" + map_key(element) + "]";
      if (value->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
        CONCH_RUNTIME_RETURN_IF_ERROR(validate_enum_values(
            element.GetReflection()->GetMessage(element, value), where, file));
      else if (value->cpp_type() == FieldDescriptor::CPPTYPE_ENUM)
        CONCH_RUNTIME_RETURN_IF_ERROR(check_enum(element, value, where, file));
      continue;
    }
    CONCH_RUNTIME_RETURN_IF_ERROR(
        validate_enum_values(element, indexed(path, static_cast<size_t>(i)), file));
  }
  return status::ok();
}

} // namespace

status validate_enum_values(const Message& message, const std::string& path,
                            const std::string& file) {
  std::vector<const FieldDescriptor*> fields;
  message.GetReflection()->ListFields(message, &fields);
  for (const auto* f : fields) {
    auto where = join(path, f->name());
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_ENUM)
      CONCH_RUNTIME_RETURN_IF_ERROR(check_enum(message, f, where, file));
    else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
      CONCH_RUNTIME_RETURN_IF_ERROR(check_messages(message, f, where, file));
  }
  return status::ok();
}

} // namespace conch::runtime::model_config
