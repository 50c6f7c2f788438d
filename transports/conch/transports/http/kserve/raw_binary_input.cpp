#include "conch/transports/http/kserve/raw_binary_input.hpp"

#include <string_view>
#include <vector>

#include "conch/runtime/bytes_elements.hpp"
#include "conch/runtime/data_type.hpp"

namespace conch::transports::http::kserve {

namespace {

runtime::status refuse(const inference::ModelConfig& config, const std::string& why) {
  return runtime::invalid_argument("raw binary request for model '" + config.name() + "': " + why);
}

} // namespace

runtime::status complete_raw_input(const inference::ModelConfig& config,
                                   codec::decoded_infer& decoded) {
  if (config.input_size() != 1 || decoded.request.inputs.size() != 1)
    return runtime::invalid_argument(
      "Raw request must only have 1 input (found " + std::to_string(decoded.request.inputs.size())
      + ") to be deduced but got " + std::to_string(config.input_size()) + " inputs in '"
      + config.name() + "' model configuration");
  const auto& input = config.input(0);
  auto type = runtime::parse_config_type(inference::DataType_Name(input.data_type()));
  if (!type)
    return refuse(config, "the input has no usable data type");
  auto& tensor = decoded.request.inputs[0];
  tensor.name = input.name();
  tensor.type = *type;
  tensor.shape.clear();
  if (config.max_batch_size() > 0)
    tensor.shape.push_back(1);
  if (*type == runtime::data_type::bytes) {
    // The body is the one element's bytes: give it its length prefix.
    std::string_view element{reinterpret_cast<const char*>(tensor.data.data()),
                             tensor.data.size()};
    tensor.data = runtime::serialize_bytes_elements({element});
    tensor.shape.push_back(1);
    return runtime::status::ok();
  }
  int64_t known = 1;
  int variable = 0;
  for (auto d : input.dims()) {
    if (d < 0)
      ++variable;
    else
      known *= d;
  }
  if (variable > 1)
    return refuse(config, "the input has more than one variable dimension");
  auto size = static_cast<int64_t>(runtime::element_size(*type));
  auto elements = static_cast<int64_t>(tensor.data.size()) / size;
  if (elements * size != static_cast<int64_t>(tensor.data.size())
      || (variable == 1 && (known == 0 || elements % known != 0)))
    return refuse(config, "the body's " + std::to_string(tensor.data.size())
                            + " bytes do not fit the input's shape");
  for (auto d : input.dims())
    tensor.shape.push_back(d < 0 ? elements / known : d);
  return runtime::status::ok();
}

} // namespace conch::transports::http::kserve
