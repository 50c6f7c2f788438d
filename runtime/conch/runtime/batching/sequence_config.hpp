#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "conch/runtime/inference_request.hpp"
#include "conch/runtime/result.hpp"
#include "conch/runtime/tensor.hpp"
#include "model_config.pb.h"

namespace conch::runtime::batching {

/// A request's correlation id: none, a number or a string. A string "1" and
/// the number 1 name different sequences, as in Triton.
using correlation_id = decltype(inference_request::correlation_id);

/// The id as messages print it: the number, or the string itself.
std::string correlation_id_text(const correlation_id& id);

/// True when `id` names a sequence (not none, 0 or "").
bool names_sequence(const correlation_id& id) noexcept;

/// One control input of `sequence_batching.control_input`.
struct sequence_control {
  enum class kind { start, ready, end, corrid };
  std::string name;
  kind what = kind::start;
  data_type type = data_type::int32;
  /// The bytes of one false and one true element (the boolean kinds).
  std::vector<std::byte> false_value, true_value;
};

/// One implicit state of `sequence_batching.state`: fed to the model as
/// input `input_name`, taken back from its output `output_name`.
struct sequence_state_spec {
  std::string input_name;
  std::string output_name;
  data_type type = data_type::fp32;
  /// The state's shape for one request, with a leading batch dimension of 1
  /// when the model batches, variable dims as 1.
  shape_type shape;
  /// What a sequence starts with: initial_state's data (zeros without one,
  /// where Triton leaves the memory unset).
  buffer initial;
  /// Listed in the configuration's outputs too: a client may ask for it.
  bool returned = false;
};

/// The sequence batcher's settings of a normalised, validated model
/// configuration, with each state's initial data read from its file.
struct sequence_config {
  std::string model;
  /// The oldest strategy (else direct).
  bool oldest = false;
  /// sequence_batching.iterative_sequence: each request is a sequence of its
  /// own, which its backend may have run again (rescheduled) until done.
  bool iterative = false;
  int32_t max_batch_size = 0;
  /// Model instances: direct keeps slots_per_instance for each.
  size_t instances = 1;
  size_t slots_per_instance = 1;
  /// The oldest strategy's candidate sequences.
  size_t candidates = 1;
  /// The oldest strategy's preferred batch sizes (none: max(1,
  /// max_batch_size)).
  std::vector<size_t> preferred;
  uint64_t max_queue_delay_ns = 0;
  /// The direct strategy's minimum_slot_utilization.
  double minimum_slot_utilization = 0;
  uint64_t idle_ns = 1'000'000'000;
  std::vector<sequence_control> controls;
  std::vector<sequence_state_spec> states;
  /// The configuration's outputs, in order.
  std::vector<std::string> outputs;

  /// From `config`; `model_path` holds initial_state/<data_file>. Fails
  /// with the file's problem or a state the configuration gets wrong.
  static result<sequence_config> from(const inference::ModelConfig& config,
                                      const std::filesystem::path& model_path,
                                      size_t instances);

  /// The control tensors of one request (or of a padding row, `ready`
  /// false), each of shape [1] ([1, 1] when the model batches). A CORRID
  /// control of a string type gets the id as text; an integer one the id's
  /// low-order bytes (`check_id` refused string ids for it).
  std::vector<tensor> control_tensors(bool start, bool end, bool ready,
                                      const correlation_id& id) const;

  /// Checks that `id` fits the CORRID control, if there is one.
  status check_id(const correlation_id& id) const;
};

} // namespace conch::runtime::batching
