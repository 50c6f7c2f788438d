#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "conch/runtime/backends/backend.hpp"
#include "conch/runtime/result.hpp"
#include "model_config.pb.h"

namespace conch::runtime::backends::ensemble {

/// One step of an ensemble: the model it runs and how the model's inputs
/// and outputs map onto the ensemble's tensors (by index in
/// ensemble_graph::tensors).
struct ensemble_step {
  std::string model_name;
  int64_t model_version = -1;
  /// (the model's input name, the tensor it reads)
  std::vector<std::pair<std::string, size_t>> inputs;
  /// (the model's output name, the tensor it writes)
  std::vector<std::pair<std::string, size_t>> outputs;
};

/// An ensemble's data flow: its tensors, which step writes each one and
/// which steps read it. A step runs once every tensor it reads exists.
struct ensemble_graph {
  /// The name of every tensor: the ensemble's inputs and outputs and the
  /// ones between steps.
  std::vector<std::string> tensors;
  /// By tensor: the step that writes it, or -1 for an ensemble input.
  std::vector<int64_t> producer;
  /// By tensor: the steps that read it, ascending.
  std::vector<std::vector<size_t>> consumers;
  /// The ensemble's inputs and outputs, in configuration order.
  std::vector<size_t> inputs;
  std::vector<size_t> outputs;
  std::vector<ensemble_step> steps;

  /// The graph of an ensemble's configuration, checked the way Triton checks
  /// it at load: every tensor a step reads is an ensemble input or written
  /// by a step, no tensor is written twice or is both, every output is
  /// written, and the data flow has no cycle. Errors name the ensemble.
  static result<ensemble_graph> build(const inference::ModelConfig& config);

  /// The tensor called `name`, or tensors.size().
  size_t find(const std::string& name) const noexcept;
};

/// Checks the steps against the configurations of the models they run, as
/// they are loaded now: each model is available, the names in the maps are
/// inputs and outputs of it, and the data types of the tensors passed
/// between steps agree (the ensemble's own inputs and outputs included).
status check_steps(const ensemble_graph& graph, const inference::ModelConfig& config,
                   const model_gateway& models);

} // namespace conch::runtime::backends::ensemble
