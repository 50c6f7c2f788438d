#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/result.hpp"

namespace conch::transports::openai {

/// The LoRA adapters the frontend knows (--lora-separator): a request for
/// model "<base><separator><adapter>" runs <base> with that adapter.
struct lora_adapters {
  /// Splits model names; empty: names are never split.
  std::string separator;
  /// Each model's adapters, in the order its multi_lora.json lists them
  /// (their task ids are 1, 2, ...). A model not listed takes any adapter
  /// name, passed on as it is.
  std::map<std::string, std::vector<std::string>> by_model;
};

/// A request's model name, split: the model and the adapter ("" for none).
/// A name splits only into exactly two non-empty parts, as Triton's.
struct lora_name {
  std::string model;
  std::string adapter;
};

lora_name split_model_name(std::string_view name, std::string_view separator);

/// The task id (1-based) of `name`'s adapter where its model lists its
/// adapters, nullopt where it lists none; INVALID_ARG "Unknown LoRA:
/// <adapter>; for model: <full name>" for one its model does not list.
runtime::result<std::optional<uint64_t>> adapter_task_id(const lora_adapters& adapters,
                                                         const lora_name& name,
                                                         std::string_view full_name);

/// The ids /v1/models lists for `models`: each model, then each of its
/// adapters as "<model><separator><adapter>" when a separator is set.
std::vector<std::string> model_ids(const std::vector<std::string>& models,
                                   const lora_adapters& adapters);

} // namespace conch::transports::openai
