#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "conch/runtime/result.hpp"
#include "model_config.pb.h"

namespace conch::transports::openai {

/// Which of the two request conventions of Triton's OpenAI frontend a model
/// follows.
enum class contract_style {
  /// vLLM's: `text_input`, `stream` and the sampling settings as one JSON
  /// string, `sampling_parameters`.
  vllm,
  /// TensorRT-LLM's: `text_input`, `stream` and each sampling setting an
  /// input of its own (`max_tokens`, `temperature`, `top_p`, ...), which a
  /// model may leave out.
  tensor_inputs,
};

/// How the OpenAI frontend drives one model, read from its configuration
/// once: which convention its inputs follow, whether it streams, and the
/// optional inputs and outputs it declares.
struct model_contract {
  contract_style style = contract_style::tensor_inputs;
  /// The model answers with several responses per request (decoupled): it
  /// can stream token by token. Otherwise it answers once, and a streaming
  /// request gets that answer as one chunk.
  bool decoupled = false;
  /// A batching model takes its inputs with a batch dimension of 1 first.
  bool batched = false;
  /// The input that keeps the prompt out of the output, where the model has
  /// one (`exclude_input_in_output` or
  /// `sampling_param_exclude_input_from_output`).
  std::optional<std::string> exclude_input;
  /// The model reports token counts (`num_input_tokens`,
  /// `num_output_tokens` outputs).
  bool reports_token_counts = false;
};

/// The contract of `config`: the vLLM convention for the vllm backend or a
/// model with a `sampling_parameters` input, the tensor-input convention
/// for any other model with a `text_input` input. INVALID_ARG naming what
/// is missing or of the wrong type for a model that follows neither (no
/// BYTES `text_input` input, no BYTES `text_output` output, a
/// `sampling_parameters` or `stream` input of the wrong type).
runtime::result<model_contract> contract_of(const inference::ModelConfig& config);

/// The input of `config` named `name`; null when it declares none.
const inference::ModelInput* find_input(const inference::ModelConfig& config,
                                        std::string_view name);

/// Whether `config` declares an input named `name`.
bool has_input(const inference::ModelConfig& config, const std::string& name);

} // namespace conch::transports::openai
