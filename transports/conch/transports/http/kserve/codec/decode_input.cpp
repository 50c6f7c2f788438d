#include "conch/transports/http/kserve/codec/decode_input.hpp"

#include <limits>

#include "conch/transports/http/kserve/codec/json_reader.hpp"
#include "conch/transports/http/kserve/codec/json_tensor_data.hpp"
#include "conch/transports/protocol/request_limits.hpp"

namespace conch::transports::http::kserve::codec {

namespace {

using runtime::status;

enum class content { data, binary, shared_memory };

// Triton's check, with its message: exactly one source of data per input.
runtime::result<content> content_kind(const rapidjson::Value& input) {
  const auto* params = find_member(input, "parameters");
  bool has_data = find_member(input, "data") != nullptr;
  bool has_binary = params != nullptr && find_member(*params, "binary_data_size") != nullptr;
  bool has_shm = params != nullptr && find_member(*params, "shared_memory_region") != nullptr;
  int set = int{has_data} + int{has_binary} + int{has_shm};
  if (set == 1)
    return has_data ? content::data : has_binary ? content::binary : content::shared_memory;
  std::string m = "Input must set only one of the following fields: 'data', 'binary_data_size' "
                  "in 'parameters', 'shared_memory_region' in 'parameters'. But";
  if (set == 0)
    m += " no field is set";
  else
    m += std::string{" set"} + (has_data ? " 'data'" : "") + (has_binary ? " 'binary_data_size'" : "")
         + (has_shm ? " 'shared_memory_region'" : "");
  return runtime::invalid_argument(std::move(m));
}

status read_shape(const rapidjson::Value& input, runtime::shape_type& shape) {
  const auto* v = find_member(input, "shape");
  if (v == nullptr)
    return parse_error("shape", "the field is missing");
  if (!v->IsArray())
    return parse_error("shape", "expected an array of unsigned integers");
  for (const auto& d : v->GetArray()) {
    if (!d.IsUint64() || d.GetUint64() > uint64_t{std::numeric_limits<int64_t>::max()})
      return parse_error("shape", "expected an array of unsigned integers");
    shape.push_back(static_cast<int64_t>(d.GetUint64()));
  }
  if (runtime::element_count(shape) < 0)
    return parse_error("shape", "the element count " + runtime::shape_string(shape)
                                  + " does not fit in 64 bits");
  return status::ok();
}

status read_shared_memory(const rapidjson::Value& params, shared_memory_ref& ref) {
  CONCH_RUNTIME_RETURN_IF_ERROR(read_string(params, "shared_memory_region", ref.region));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_uint(params, "shared_memory_offset", ref.offset));
  if (find_member(params, "shared_memory_byte_size") == nullptr)
    return parse_error("shared_memory_byte_size", "the field is missing");
  return read_uint(params, "shared_memory_byte_size", ref.byte_size);
}

status read_binary(const rapidjson::Value& params, binary_section& binary, std::string_view model,
                   runtime::tensor& t) {
  uint64_t size = 0;
  CONCH_RUNTIME_RETURN_IF_ERROR(read_uint(params, "binary_data_size", size));
  auto bytes = binary.take(size, t.name, model);
  if (!bytes)
    return bytes.error();
  t.data = std::move(*bytes);
  return t.validate_data(model);
}

status read_data(const rapidjson::Value& input, std::string_view model, runtime::tensor& t) {
  auto count = runtime::element_count(t.shape);
  if (count == 0)
    return status::ok(); // an empty tensor needs no data, whatever 'data' holds
  auto bytes = read_json_tensor_data(*find_member(input, "data"), t.type, count, t.name);
  if (!bytes)
    return bytes.error();
  t.data = std::move(*bytes);
  return t.type == runtime::data_type::bytes ? t.validate_data(model) : status::ok();
}

} // namespace

status decode_input(const rapidjson::Value& input, binary_section& binary, std::string_view model,
                    decoded_infer& out) {
  if (!input.IsObject())
    return parse_error("inputs", "expected an array of objects");
  auto kind = content_kind(input);
  if (!kind)
    return kind.error();
  runtime::tensor t;
  std::string datatype;
  CONCH_RUNTIME_RETURN_IF_ERROR(require_string(input, "name", t.name));
  CONCH_RUNTIME_RETURN_IF_ERROR(require_string(input, "datatype", datatype));
  CONCH_RUNTIME_RETURN_IF_ERROR(read_shape(input, t.shape));
  auto type = runtime::parse_data_type(datatype);
  if (!type)
    return runtime::invalid_argument("invalid datatype for input " + t.name);
  t.type = *type;
  const auto* params = find_member(input, "parameters");
  if (params != nullptr && params->IsObject())
    CONCH_RUNTIME_RETURN_IF_ERROR(
      protocol::check_parameter_count("input", t.name, params->MemberCount()));
  if (*kind == content::binary) {
    CONCH_RUNTIME_RETURN_IF_ERROR(read_binary(*params, binary, model, t));
  } else if (*kind == content::shared_memory) {
    shared_memory_input shm{out.request.inputs.size(), {}};
    CONCH_RUNTIME_RETURN_IF_ERROR(read_shared_memory(*params, shm.ref));
    out.shared_memory_inputs.push_back(std::move(shm));
  } else {
    CONCH_RUNTIME_RETURN_IF_ERROR(read_data(input, model, t));
  }
  out.request.inputs.push_back(std::move(t));
  return status::ok();
}

} // namespace conch::transports::http::kserve::codec
