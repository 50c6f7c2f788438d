#include "conch/transports/openai/build_request.hpp"

#include <cstring>
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

// One number as an element of `type`; false for a type a number cannot be.
template <class N>
bool put_number(std::string& bytes, runtime::data_type type, N v) {
  using runtime::data_type;
  switch (type) {
    case data_type::bool_: put<uint8_t>(bytes, v != 0 ? 1 : 0); return true;
    case data_type::uint8: put(bytes, static_cast<uint8_t>(v)); return true;
    case data_type::uint16: put(bytes, static_cast<uint16_t>(v)); return true;
    case data_type::uint32: put(bytes, static_cast<uint32_t>(v)); return true;
    case data_type::uint64: put(bytes, static_cast<uint64_t>(v)); return true;
    case data_type::int8: put(bytes, static_cast<int8_t>(v)); return true;
    case data_type::int16: put(bytes, static_cast<int16_t>(v)); return true;
    case data_type::int32: put(bytes, static_cast<int32_t>(v)); return true;
    case data_type::int64: put(bytes, static_cast<int64_t>(v)); return true;
    case data_type::fp32: put(bytes, static_cast<float>(v)); return true;
    case data_type::fp64: put(bytes, static_cast<double>(v)); return true;
    default: return false;
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
    } else if (!put_number(bytes, *type, v)) {
      return runtime::invalid_argument("input '" + in->name() + "' of model '" + config_.name()
                                       + "' has a type the OpenAI frontend cannot fill: "
                                       + inference::DataType_Name(in->data_type()));
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
  if (!schema.json.empty()) {
    j.key("structured_outputs");
    j.begin_object();
    j.key("json");
    j.raw(schema.json);
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
    if (!schema.json.empty()) {
      CONCH_RUNTIME_RETURN_IF_ERROR(in.text("guided_decoding_guide_type", "json_schema"));
      CONCH_RUNTIME_RETURN_IF_ERROR(in.text("guided_decoding_guide", schema.json));
    }
  }
  CONCH_RUNTIME_RETURN_IF_ERROR(in.number("return_num_input_tokens", true));
  CONCH_RUNTIME_RETURN_IF_ERROR(in.number("return_num_output_tokens", true));
  if (settings.logprobs)
    CONCH_RUNTIME_RETURN_IF_ERROR(in.number("return_logprobs", true));
  return request;
}

} // namespace conch::transports::openai
