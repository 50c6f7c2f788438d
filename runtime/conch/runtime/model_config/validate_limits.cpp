#include "conch/runtime/model_config/validate_limits.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "conch/runtime/data_type.hpp"
#include "conch/runtime/model_config/config_error.hpp"
#include "conch/runtime/model_config/limits.hpp"

namespace conch::runtime::model_config {

namespace {

using group_t = inference::ModelInstanceGroup;
using dims_t = google::protobuf::RepeatedField<int64_t>;

std::string over(int64_t value, int64_t limit, const std::string& what) {
  return what + " " + std::to_string(value) + " exceeds the limit of " + std::to_string(limit);
}

// The instances a group starts: `count` on each of its GPUs, or `count`.
int64_t group_instances(const group_t& g) {
  const int64_t count = std::max(1, g.count());
  return g.kind() == group_t::KIND_GPU && g.gpus_size() > 0 ? count * g.gpus_size() : count;
}

status check_instances(const inference::ModelConfig& c, const std::string& file,
                       int64_t& total) {
  constexpr auto limit = limits::max_instances;
  total = 0;
  for (int i = 0; i < c.instance_group_size(); ++i) {
    const auto& g = c.instance_group(i);
    if (g.count() > limit)
      return config_error(file, indexed("instance_group", static_cast<size_t>(i)) + ".count",
                          over(g.count(), limit, "instance count") + " instances per model");
    // Each term is at most limit * gpus_size: the sum cannot overflow.
    total += group_instances(g);
    if (total > limit)
      return config_error(file, "instance_group",
                          "the groups start more than " + std::to_string(limit)
                            + " instances (count times the GPUs of a group, over every group); "
                              "the limit is " + std::to_string(limit) + " instances per model");
  }
  return status::ok();
}

status check_sequence_slots(const inference::ModelConfig& c, int64_t instances,
                            const std::string& file) {
  if (!c.has_sequence_batching())
    return status::ok();
  const auto& b = c.sequence_batching();
  const int64_t batch = std::max(1, c.max_batch_size());
  bool candidates = b.has_oldest() && b.oldest().max_candidate_sequences() > 0;
  const int64_t per = candidates ? b.oldest().max_candidate_sequences() : batch;
  const auto field = candidates ? "sequence_batching.oldest.max_candidate_sequences"
                                : "max_batch_size";
  const int64_t slots = per * std::max<int64_t>(1, instances);
  if (slots > limits::max_sequence_slots)
    return config_error(file, field,
                        "the sequence batcher would keep " + std::to_string(per)
                          + " sequence slots on each of " + std::to_string(instances)
                          + " instances; " + over(slots, limits::max_sequence_slots, "the total")
                          + " slots per model");
  return status::ok();
}

// The bytes of a tensor of `type` and `dims` (a negative dimension counts
// as `negative_as`); nullopt past max_config_tensor_bytes or on overflow.
std::optional<int64_t> tensor_bytes(inference::DataType type, const dims_t& dims,
                                    int64_t negative_as) {
  auto size = static_cast<int64_t>(element_size(static_cast<data_type>(type)));
  int64_t bytes = size == 0 ? 4 : size; // a BYTES element is at least its length
  for (auto d : dims) {
    auto n = d < 0 ? negative_as : d;
    if (__builtin_mul_overflow(bytes, n, &bytes) || bytes > limits::max_config_tensor_bytes)
      return std::nullopt;
  }
  return bytes;
}

status check_tensor_bytes(inference::DataType type, const dims_t& dims, int64_t negative_as,
                          const std::string& field, const std::string& file) {
  if (tensor_bytes(type, dims, negative_as))
    return status::ok();
  return config_error(file, field,
                      "the tensor exceeds the limit of "
                        + std::to_string(limits::max_config_tensor_bytes)
                        + " bytes that a configuration may make the server allocate");
}

status check_warmup(const inference::ModelConfig& c, const std::string& file) {
  int64_t total = 0;    // the bytes of every sample's inputs
  int64_t requests = 0; // every sample's batch_size times its runs
  for (int i = 0; i < c.model_warmup_size(); ++i) {
    const auto& w = c.model_warmup(i);
    const auto path = indexed("model_warmup", static_cast<size_t>(i));
    if (w.batch_size() > limits::max_warmup_batch_size)
      return config_error(file, path + ".batch_size",
                          over(w.batch_size(), limits::max_warmup_batch_size, "batch size"));
    if (w.count() > limits::max_warmup_count)
      return config_error(file, path + ".count",
                          over(w.count(), limits::max_warmup_count, "run count"));
    // Both factors are capped above, so the product cannot overflow.
    requests += std::max<int64_t>(w.batch_size(), 1) * std::max<int64_t>(w.count(), 1);
    if (requests > limits::max_warmup_requests)
      return config_error(file, path,
                          "the warm-up samples together make more than "
                            + std::to_string(limits::max_warmup_requests)
                            + " requests (batch_size times count) for each instance");
    // A negative dimension is refused when the samples are made.
    for (const auto& [name, input] : w.inputs()) {
      const auto field = path + ".inputs[" + name + "].dims";
      CONCH_RUNTIME_RETURN_IF_ERROR(
        check_tensor_bytes(input.data_type(), input.dims(), 0, field, file));
      total += *tensor_bytes(input.data_type(), input.dims(), 0);
      if (total > limits::max_config_tensor_bytes)
        return config_error(file, field,
                            "the warm-up samples together exceed the limit of "
                              + std::to_string(limits::max_config_tensor_bytes)
                              + " bytes that a configuration may make the server allocate");
    }
  }
  return status::ok();
}

status check_states(const inference::ModelConfig& c, const std::string& file) {
  const auto& states = c.sequence_batching().state();
  for (int i = 0; i < states.size(); ++i) {
    const auto path = indexed("sequence_batching.state", static_cast<size_t>(i));
    // A variable-size state dimension starts as 1.
    CONCH_RUNTIME_RETURN_IF_ERROR(
      check_tensor_bytes(states[i].data_type(), states[i].dims(), 1, path + ".dims", file));
    const auto& initial = states[i].initial_state();
    for (int j = 0; j < initial.size(); ++j)
      CONCH_RUNTIME_RETURN_IF_ERROR(check_tensor_bytes(
        initial[j].data_type(), initial[j].dims(), 1,
        indexed(path + ".initial_state", static_cast<size_t>(j)) + ".dims", file));
  }
  return status::ok();
}

} // namespace

status validate_limits(const inference::ModelConfig& config, const std::string& file) {
  int64_t instances = 0;
  CONCH_RUNTIME_RETURN_IF_ERROR(check_instances(config, file, instances));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_sequence_slots(config, instances, file));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_warmup(config, file));
  return check_states(config, file);
}

} // namespace conch::runtime::model_config
