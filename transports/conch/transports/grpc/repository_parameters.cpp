#include "conch/transports/grpc/repository_parameters.hpp"

namespace conch::transports::grpc {

namespace {

using param = inference::ModelRepositoryParameter;

runtime::status type_error(const std::string& key, const char* expected) {
  return runtime::invalid_argument("invalid value type for load parameter '" + key
                                   + "', expected " + expected);
}

} // namespace

runtime::result<runtime::load_parameters> decode_load_parameters(const repository_parameter_map& params) {
  runtime::load_parameters out;
  for (const auto& [key, value] : params) {
    if (key == "config") {
      if (value.parameter_choice_case() != param::kStringParam)
        return type_error(key, "string_param");
      out.config_json = value.string_param();
    } else if (key.rfind("file:", 0) == 0) {
      if (value.parameter_choice_case() != param::kBytesParam)
        return type_error(key, "bytes_param");
      out.files.emplace_back(key, value.bytes_param());
    }
  }
  return out;
}

runtime::result<bool> decode_unload_dependents(const repository_parameter_map& params) {
  auto i = params.find("unload_dependents");
  if (i == params.end())
    return false;
  if (i->second.parameter_choice_case() != param::kBoolParam)
    return runtime::invalid_argument(
      "invalid value type for unload parameter 'unload_dependents', expected bool_param");
  return i->second.bool_param();
}

} // namespace conch::transports::grpc
