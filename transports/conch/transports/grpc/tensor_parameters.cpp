#include "conch/transports/grpc/tensor_parameters.hpp"

#include <string>

namespace conch::transports::grpc {

namespace {

using param = inference::InferParameter;

runtime::status type_error(const char* key, const char* expected) {
  return runtime::invalid_argument(std::string{"invalid value type for '"} + key
                                   + "' parameter, expected " + expected);
}

// The non-negative int64_param `key` into `out`; untouched when absent.
runtime::status read_size(const parameter_map& params, const char* key, uint64_t& out,
                          bool& found) {
  auto i = params.find(key);
  found = i != params.end();
  if (!found)
    return runtime::status::ok();
  if (i->second.parameter_choice_case() != param::kInt64Param)
    return type_error(key, "int64_param");
  if (i->second.int64_param() < 0)
    return runtime::invalid_argument(std::string{"invalid value for '"} + key
                                     + "' parameter, expected a value >= 0");
  out = static_cast<uint64_t>(i->second.int64_param());
  return runtime::status::ok();
}

} // namespace

runtime::result<std::optional<runtime::shm::region_ref>> shared_memory_parameters(
  const parameter_map& params) {
  auto region = params.find("shared_memory_region");
  if (region == params.end())
    return std::optional<runtime::shm::region_ref>{};
  if (region->second.parameter_choice_case() != param::kStringParam)
    return type_error("shared_memory_region", "string_param");
  runtime::shm::region_ref ref;
  ref.region = region->second.string_param();
  bool found = false;
  CONCH_RUNTIME_RETURN_IF_ERROR(read_size(params, "shared_memory_offset", ref.offset, found));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_size(params, "shared_memory_byte_size", ref.byte_size, found));
  if (!found)
    return runtime::invalid_argument(
      "'shared_memory_byte_size' is missing, required when 'shared_memory_region' is specified");
  return std::optional<runtime::shm::region_ref>{std::move(ref)};
}

runtime::result<uint64_t> classification_parameter(const parameter_map& params) {
  auto i = params.find("classification");
  if (i == params.end())
    return uint64_t{0};
  if (i->second.parameter_choice_case() != param::kInt64Param)
    return type_error("classification", "int64_param");
  if (i->second.int64_param() <= 0)
    return runtime::invalid_argument(
      "invalid value for 'classification' parameter, expected a value > 0");
  return static_cast<uint64_t>(i->second.int64_param());
}

} // namespace conch::transports::grpc
