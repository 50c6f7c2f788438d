#include "conch/transports/openai/build_request.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "conch/runtime/bytes_elements.hpp"
#include "conch/runtime/data_type.hpp"
#include "conch/transports/openai/json_text.hpp"
#include "conch/transports/openai/model_contract.hpp"

namespace conch::transports::openai {

namespace {

using runtime::status;

// The shape of `count` elements for `in`: its dims, the first variable one
// taking what the fixed ones leave, a batch of 1 first for a batching model.
runtime::result<runtime::shape_type> shape_for(const inference::ModelConfig& config,
                                               const inference::ModelInput& in, int64_t count) {
  int64_t fixed = 1;
  bool variable = false;
  for (auto d : in.dims()) {
    if (d > (int64_t{1} << 31) || fixed > (int64_t{1} << 31))
      return runtime::invalid_argument("input '" + in.name() + "' of model '" + config.name()
                                       + "' has dims too large for the OpenAI frontend");
    if (d >= 0)
      fixed *= d;
    else
      variable = true;
  }
  if ((!variable && fixed != count) || (variable && (fixed == 0 || count % fixed != 0)))
    return runtime::invalid_argument("input '" + in.name() + "' of model '" + config.name()
                                     + "' cannot take " + std::to_string(count)
                                     + " element(s) as the OpenAI frontend sends them");
  runtime::shape_type shape;
  if (config.max_batch_size() > 0)
    shape.push_back(1);
  bool filled = false;
  for (auto d : in.dims()) {
    if (d >= 0) {
      shape.push_back(d);
    } else {
      shape.push_back(filled ? 1 : count / fixed);
      filled = true;
    }
  }
  return shape;
}

runtime::result<runtime::data_type> type_of(const inference::ModelInput& in) {
  auto type = runtime::parse_config_type(inference::DataType_Name(in.data_type()));
  if (!type)
    return runtime::invalid_argument("input '" + in.name() + "' has no usable data type");
  return *type;
}

template <class T>
void put(std::string& bytes, T v) {
  char raw[sizeof(T)];
  std::memcpy(raw, &v, sizeof(T));
  bytes.append(raw, sizeof(T));
}

// Whether `v` fits type T (a float type takes any finite value).
template <class T, class N>
bool fits(N v) {
  if constexpr (std::is_floating_point_v<T>) {
    return !std::is_floating_point_v<N> || std::isfinite(v);
  } else if constexpr (std::is_floating_point_v<N>) {
    return std::isfinite(v) && std::floor(v) == v
           && v >= static_cast<double>(std::numeric_limits<T>::min())
           && v <= static_cast<double>(std::numeric_limits<T>::max());
  } else if constexpr (std::is_same_v<N, bool>) {
    return true;
  } else if constexpr (std::is_signed_v<N>) {
    if (v < 0)
      return std::is_signed_v<T> && v >= static_cast<int64_t>(std::numeric_limits<T>::min());
    return static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  } else {
    return static_cast<uint64_t>(v) <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  }
}

// One number as an element of `type` when it fits; an error naming the
// input otherwise, or for a type a number cannot be.
template <class T, class N>
status put_checked(std::string& bytes, N v, const std::string& name) {
  if (!fits<T>(v))
    return runtime::invalid_argument("the value given for input '" + name
                                     + "' does not fit its type");
  put(bytes, static_cast<T>(v));
  return status::ok();
}

template <class N>
status put_number(std::string& bytes, runtime::data_type type, N v, const std::string& name) {
  using runtime::data_type;
  switch (type) {
    case data_type::bool_: put<uint8_t>(bytes, v != 0 ? 1 : 0); return status::ok();
    case data_type::uint8: return put_checked<uint8_t>(bytes, v, name);
    case data_type::uint16: return put_checked<uint16_t>(bytes, v, name);
    case data_type::uint32: return put_checked<uint32_t>(bytes, v, name);
    case data_type::uint64: return put_checked<uint64_t>(bytes, v, name);
    case data_type::int8: return put_checked<int8_t>(bytes, v, name);
    case data_type::int16: return put_checked<int16_t>(bytes, v, name);
    case data_type::int32: return put_checked<int32_t>(bytes, v, name);
    case data_type::int64: return put_checked<int64_t>(bytes, v, name);
    case data_type::fp32: return put_checked<float>(bytes, v, name);
    case data_type::fp64: return put_checked<double>(bytes, v, name);
    default:
      return runtime::invalid_argument("input '" + name
                                       + "' has a type the OpenAI frontend cannot fill");
  }
}

// Builds the request's inputs, each only where the model declares it
// (text_input always: the contract requires it).
class input_writer {
 public:
  input_writer(const inference::ModelConfig& config, runtime::inference_request& out)
    : config_(config), out_(out) {}

  const inference::ModelInput* declared(std::string_view name) const {
    return find_input(config_, name);
  }

  status strings(std::string_view name, const std::vector<std::string_view>& elements) {
    const auto* in = declared(name);
    if (in == nullptr)
      return status::ok();
    std::string bytes;
    for (auto e : elements)
      runtime::append_bytes_element(bytes, e);
    return add(*in, runtime::data_type::bytes, static_cast<int64_t>(elements.size()), bytes);
  }

  status text(std::string_view name, std::string_view s) { return strings(name, {s}); }

  template <class N>
  status number(std::string_view name, N v) {
    const auto* in = declared(name);
    if (in == nullptr)
      return status::ok();
    auto type = type_of(*in);
    if (!type)
      return type.error();
    std::string bytes;
    if (*type == runtime::data_type::bytes) {
      if constexpr (std::is_same_v<N, bool>)
        runtime::append_bytes_element(bytes, v ? "true" : "false");
      else
        runtime::append_bytes_element(bytes, std::to_string(v));
    } else {
      CONCH_RUNTIME_RETURN_IF_ERROR(put_number(bytes, *type, v, in->name()));
    }
    return add(*in, *type, 1, bytes);
  }

 private:
  status add(const inference::ModelInput& in, runtime::data_type type, int64_t count,
             const std::string& bytes) {
    auto shape = shape_for(config_, in, count);
    if (!shape)
      return shape.error();
    out_.inputs.push_back(runtime::tensor{in.name(), type, std::move(*shape),
                                          runtime::buffer::copy_of(bytes.data(), bytes.size())});
    return status::ok();
  }

  const inference::ModelConfig& config_;
  runtime::inference_request& out_;
};

std::string sampling_parameters(const generation_settings& s, int64_t max_tokens,
                                const output_schema& schema) {
  json_text j;
  j.begin_object();
  if (s.temperature)
    j.member("temperature", *s.temperature);
  if (s.top_p)
    j.member("top_p", *s.top_p);
  j.member("n", 1);
  if (s.frequency_penalty)
    j.member("frequency_penalty", *s.frequency_penalty);
  if (s.presence_penalty)
    j.member("presence_penalty", *s.presence_penalty);
  j.member("ignore_eos", s.ignore_eos);
  if (s.seed)
    j.member("seed", *s.seed);
  if (s.min_tokens)
    j.member("min_tokens", *s.min_tokens);
  if (!s.stop.empty()) {
    j.key("stop");
    j.begin_array();
    for (const auto& stop : s.stop)
      j.value(stop);
    j.end_array();
  }
  j.member("max_tokens", max_tokens);
  if (s.logprobs)
    j.member("logprobs", *s.logprobs);
  if (!s.lora_name.empty())
    j.member("lora_name", s.lora_name);
  if (!schema.json.empty() || schema.any_json) {
    j.key("structured_outputs");
    j.begin_object();
    if (!schema.json.empty()) {
      j.key("json");
      j.raw(schema.json);
    } else {
      j.member("json_object", true);
    }
    j.end_object();
  }
  j.end_object();
  return j.take();
}

} // namespace

runtime::result<runtime::inference_request>
build_generate_request(const inference::ModelConfig& config, const model_contract& contract,
                       std::string_view prompt, const generation_settings& settings,
                       int64_t default_max_tokens, const output_schema& schema) {
  runtime::inference_request request;
  request.model_name = config.name();
  input_writer in{config, request};
  const int64_t max_tokens = settings.max_tokens.value_or(default_max_tokens);
  CONCH_RUNTIME_RETURN_IF_ERROR(in.text("text_input", prompt));
  CONCH_RUNTIME_RETURN_IF_ERROR(in.number("stream", settings.stream));
  if (contract.exclude_input && settings.echo)
    CONCH_RUNTIME_RETURN_IF_ERROR(in.number(*contract.exclude_input, !*settings.echo));
  if (contract.style == contract_style::vllm) {
    CONCH_RUNTIME_RETURN_IF_ERROR(
      in.text("sampling_parameters", sampling_parameters(settings, max_tokens, schema)));
  } else {
    if (settings.logprobs)
      return runtime::invalid_argument("logprobs are currently available only for the vLLM "
                                       "backend");
    if (settings.seed && *settings.seed < 0)
      return runtime::invalid_argument("seed must be non-negative");
    CONCH_RUNTIME_RETURN_IF_ERROR(in.number("max_tokens", max_tokens));
    if (!settings.stop.empty()) {
      std::vector<std::string_view> stops(settings.stop.begin(), settings.stop.end());
      CONCH_RUNTIME_RETURN_IF_ERROR(in.strings("stop_words", stops));
    }
    if (settings.top_p)
      CONCH_RUNTIME_RETURN_IF_ERROR(in.number("top_p", *settings.top_p));
    if (settings.temperature)
      CONCH_RUNTIME_RETURN_IF_ERROR(in.number("temperature", *settings.temperature));
    if (settings.frequency_penalty)
      CONCH_RUNTIME_RETURN_IF_ERROR(in.number("frequency_penalty", *settings.frequency_penalty));
    if (settings.presence_penalty)
      CONCH_RUNTIME_RETURN_IF_ERROR(in.number("presence_penalty", *settings.presence_penalty));
    if (settings.seed) {
      const char* name = in.declared("seed") != nullptr ? "seed" : "random_seed";
      CONCH_RUNTIME_RETURN_IF_ERROR(in.number(name, static_cast<uint64_t>(*settings.seed)));
    }
    if (settings.min_tokens)
      CONCH_RUNTIME_RETURN_IF_ERROR(in.number("min_tokens", *settings.min_tokens));
    if (settings.lora_task_id)
      CONCH_RUNTIME_RETURN_IF_ERROR(in.number("lora_task_id", *settings.lora_task_id));
    if (!schema.json.empty()) {
      CONCH_RUNTIME_RETURN_IF_ERROR(in.text("guided_decoding_guide_type", "json_schema"));
      CONCH_RUNTIME_RETURN_IF_ERROR(in.text("guided_decoding_guide", schema.json));
    } else if (schema.any_json) {
      CONCH_RUNTIME_RETURN_IF_ERROR(in.text("guided_decoding_guide_type", "json"));
    }
  }
  CONCH_RUNTIME_RETURN_IF_ERROR(in.number("return_num_input_tokens", true));
  CONCH_RUNTIME_RETURN_IF_ERROR(in.number("return_num_output_tokens", true));
  if (settings.logprobs)
    CONCH_RUNTIME_RETURN_IF_ERROR(in.number("return_logprobs", true));
  return request;
}

} // namespace conch::transports::openai
