#include "conch/transports/openai/model_contract.hpp"

namespace conch::transports::openai {

const inference::ModelInput* find_input(const inference::ModelConfig& config,
                                        std::string_view name) {
  for (const auto& in : config.input())
    if (in.name() == name)
      return &in;
  return nullptr;
}

namespace {

const inference::ModelOutput* find_output(const inference::ModelConfig& config,
                                          const std::string& name) {
  for (const auto& out : config.output())
    if (out.name() == name)
      return &out;
  return nullptr;
}

runtime::status contract_error(const inference::ModelConfig& config, const std::string& what) {
  return runtime::invalid_argument("model '" + config.name()
                                   + "' does not follow the OpenAI frontend's model contract: "
                                   + what);
}

// An input the contract gives a type, when the model declares it.
runtime::status check_type(const inference::ModelConfig& config, const std::string& name,
                           inference::DataType type) {
  const auto* in = find_input(config, name);
  if (in == nullptr || in->data_type() == type)
    return runtime::status::ok();
  return contract_error(config, "its input '" + name + "' must be "
                                  + inference::DataType_Name(type) + ", not "
                                  + inference::DataType_Name(in->data_type()));
}

} // namespace

bool has_input(const inference::ModelConfig& config, const std::string& name) {
  return find_input(config, name) != nullptr;
}

runtime::result<model_contract> contract_of(const inference::ModelConfig& config) {
  const auto* text_input = find_input(config, "text_input");
  if (text_input == nullptr)
    return contract_error(config, "it has no input 'text_input' (TYPE_STRING) for the prompt");
  if (text_input->data_type() != inference::TYPE_STRING)
    return contract_error(config, "its input 'text_input' must be TYPE_STRING, not "
                                    + inference::DataType_Name(text_input->data_type()));
  const auto* text_output = find_output(config, "text_output");
  if (text_output == nullptr)
    return contract_error(config, "it has no output 'text_output' (TYPE_STRING) for the text");
  if (text_output->data_type() != inference::TYPE_STRING)
    return contract_error(config, "its output 'text_output' must be TYPE_STRING, not "
                                    + inference::DataType_Name(text_output->data_type()));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_type(config, "stream", inference::TYPE_BOOL));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_type(config, "sampling_parameters", inference::TYPE_STRING));

  model_contract contract;
  contract.style = config.backend() == "vllm" || has_input(config, "sampling_parameters")
                     ? contract_style::vllm
                     : contract_style::tensor_inputs;
  contract.decoupled = config.model_transaction_policy().decoupled();
  contract.batched = config.max_batch_size() > 0;
  for (const char* name : {"exclude_input_in_output", "sampling_param_exclude_input_from_output"})
    if (has_input(config, name)) {
      contract.exclude_input = name;
      break;
    }
  contract.reports_token_counts = find_output(config, "num_input_tokens") != nullptr
                                  && find_output(config, "num_output_tokens") != nullptr;
  return contract;
}

} // namespace conch::transports::openai
