#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/result.hpp"
#include "conch/transports/openai/model_contract.hpp"
#include "conch/transports/openai/requests.hpp"
#include "model_config.pb.h"

namespace conch::transports::openai {

/// Constrains what the model may produce (guided decoding): JSON that
/// follows a schema (a tool the request requires the model to call, or a
/// `response_format` of type json_schema), or any JSON object
/// (json_object).
struct output_schema {
  /// The JSON schema, as text; empty: none.
  std::string json;
  /// Any JSON object will do (when `json` is empty).
  bool any_json = false;
};

/// The inference request that asks model `config` (of `contract`) to
/// continue `prompt` under `settings`, in the convention the model follows:
/// - vLLM's: `text_input`, `stream`, and the sampling settings as one JSON
///   string in `sampling_parameters` (`max_tokens` defaulting to
///   `default_max_tokens`, `structured_outputs` for a schema);
/// - the tensor-input one: `text_input`, `stream`, `max_tokens` and each
///   other setting as a tensor of the type the model declares, only for the
///   inputs it declares (`stop_words`, `temperature`, `top_p`, penalties,
///   `seed` or `random_seed`, guided decoding).
/// Both ask for token counts and log probabilities only where the model
/// takes the flag, and set the echo input where it has one and the client
/// chose. Shapes follow the model's dims, a batch of 1 first for a batching
/// model. INVALID_ARG for what the convention cannot carry: log
/// probabilities from a tensor-input model, a negative seed for one.
runtime::result<runtime::inference_request>
build_generate_request(const inference::ModelConfig& config, const model_contract& contract,
                       std::string_view prompt, const generation_settings& settings,
                       int64_t default_max_tokens, const output_schema& schema = {});

} // namespace conch::transports::openai
