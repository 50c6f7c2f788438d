#include "conch/runtime/model_config/validate_tensors.hpp"

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "conch/runtime/model_config/config_error.hpp"

namespace conch::runtime::model_config {

namespace {

using dims_t = google::protobuf::RepeatedField<int64_t>;

constexpr int64_t wildcard = -1;

// The products of the runs of fixed dimensions between wildcards: [2,4,-1,6]
// gives [8, 6]. nullopt when a product overflows.
std::optional<std::vector<int64_t>> segment_counts(const dims_t& dims) {
  std::vector<int64_t> counts{1};
  for (auto d : dims) {
    if (d == wildcard) {
      counts.push_back(1);
    } else if (__builtin_mul_overflow(counts.back(), d, &counts.back())) {
      return std::nullopt;
    }
  }
  return counts;
}

std::string dims_text(const dims_t& dims) {
  std::string out = "[";
  for (int i = 0; i < dims.size(); ++i)
    out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

status check_dim_values(const dims_t& dims, const std::string& field, const std::string& file) {
  for (int i = 0; i < dims.size(); ++i)
    if (dims[i] < 1 && dims[i] != wildcard)
      return config_error(file, indexed(field, static_cast<size_t>(i)),
                          "dimension must be an integer >= 1, or -1 for a variable-size "
                          "dimension, got " + std::to_string(dims[i]));
  return status::ok();
}

status check_reshape(const dims_t& dims, const inference::ModelTensorReshape& reshape,
                     int32_t max_batch_size, const std::string& path, const std::string& file) {
  const auto field = path + ".reshape.shape";
  if (reshape.shape_size() == 0 && max_batch_size == 0)
    return config_error(file, field,
                        "empty reshape is not allowed when max_batch_size is 0 (scalar "
                        "tensors without a batch dimension are not supported)");
  CONCH_RUNTIME_RETURN_IF_ERROR(check_dim_values(reshape.shape(), field, file));
  auto from = segment_counts(dims);
  auto to = segment_counts(reshape.shape());
  if (!from || !to)
    return config_error(file, field, "element count overflows a 64-bit integer");
  const auto mismatch = "reshape " + dims_text(reshape.shape()) +
                        " does not hold the same elements as dims " + dims_text(dims);
  // An empty reshape is a scalar: it fits dims holding exactly one element.
  if (reshape.shape_size() == 0)
    return from->size() == 1 && from->front() == 1 ? status::ok()
                                                   : config_error(file, field, mismatch);
  if (from->size() != to->size())
    return config_error(file, field,
                        mismatch + " (different number of variable-size dimensions)");
  return *from == *to ? status::ok() : config_error(file, field, mismatch);
}

template <class Tensor>
status check_tensor(const Tensor& t, const std::string& path, const inference::ModelConfig& c,
                    const std::string& file) {
  if (t.name().empty())
    return config_error(file, path + ".name", "tensor must have a name");
  if (t.data_type() == inference::TYPE_INVALID)
    return config_error(file, path + ".data_type",
                        "tensor '" + t.name() + "' must specify a data type");
  if (t.dims_size() == 0)
    return config_error(file, path + ".dims", "tensor '" + t.name() + "' must specify dims");
  CONCH_RUNTIME_RETURN_IF_ERROR(check_dim_values(t.dims(), path + ".dims", file));
  if (t.has_reshape())
    CONCH_RUNTIME_RETURN_IF_ERROR(check_reshape(t.dims(), t.reshape(), c.max_batch_size(),
                                                path, file));
  if (t.is_shape_tensor() && c.platform() != "tensorrt_plan")
    return config_error(file, path + ".is_shape_tensor",
                        "shape tensors are only supported for the tensorrt_plan platform");
  if (t.is_non_linear_format_io() && c.platform() != "tensorrt_plan")
    return config_error(file, path + ".is_non_linear_format_io",
                        "non-linear I/O formats are only supported for the tensorrt_plan "
                        "platform");
  if (t.is_non_linear_format_io() && t.dims_size() != 3)
    return config_error(file, path + ".dims", "non-linear I/O format requires 3 dims");
  return status::ok();
}

template <class Tensors, class Extra>
status check_tensors(const Tensors& tensors, const std::string& field,
                     const inference::ModelConfig& c, const std::string& file, Extra extra) {
  std::set<std::string> seen;
  for (int i = 0; i < tensors.size(); ++i) {
    const auto path = indexed(field, static_cast<size_t>(i));
    CONCH_RUNTIME_RETURN_IF_ERROR(check_tensor(tensors[i], path, c, file));
    if (!seen.insert(tensors[i].name()).second)
      return config_error(file, path + ".name",
                          "duplicate " + field + " name '" + tensors[i].name() + "'");
    CONCH_RUNTIME_RETURN_IF_ERROR(extra(tensors[i], path));
  }
  return status::ok();
}

status check_format(const inference::ModelInput& input, const std::string& path,
                    const std::string& file) {
  bool image = input.format() == inference::ModelInput::FORMAT_NHWC ||
               input.format() == inference::ModelInput::FORMAT_NCHW;
  if (image && input.dims_size() != 3)
    return config_error(file, path + ".dims",
                        inference::ModelInput::Format_Name(input.format()) +
                            " input '" + input.name() + "' requires 3 dims, got " +
                            dims_text(input.dims()));
  return status::ok();
}

status check_names(const google::protobuf::RepeatedPtrField<std::string>& names,
                   const std::set<std::string>& known, const std::string& field,
                   const std::string& what, const std::string& file) {
  for (int i = 0; i < names.size(); ++i)
    if (known.count(names[i]) == 0)
      return config_error(file, indexed(field, static_cast<size_t>(i)),
                          "unknown " + what + " '" + names[i] + "'");
  return status::ok();
}

status check_batch_io(const inference::ModelConfig& c, const std::string& file) {
  std::set<std::string> inputs, outputs;
  for (const auto& t : c.input())
    inputs.insert(t.name());
  for (const auto& t : c.output())
    outputs.insert(t.name());
  for (int i = 0; i < c.batch_input_size(); ++i) {
    const auto& b = c.batch_input(i);
    const auto path = indexed("batch_input", static_cast<size_t>(i));
    if (b.source_input_size() != 1)
      return config_error(file, path + ".source_input",
                          "expects 1 source input, got " + std::to_string(b.source_input_size()));
    if (b.data_type() != inference::TYPE_INT32 && b.data_type() != inference::TYPE_FP32)
      return config_error(file, path + ".data_type", "must be TYPE_INT32 or TYPE_FP32");
    CONCH_RUNTIME_RETURN_IF_ERROR(
        check_names(b.source_input(), inputs, path + ".source_input", "source input", file));
  }
  for (int i = 0; i < c.batch_output_size(); ++i) {
    const auto& b = c.batch_output(i);
    const auto path = indexed("batch_output", static_cast<size_t>(i));
    if (b.source_input_size() != 1)
      return config_error(file, path + ".source_input",
                          "expects 1 source input, got " + std::to_string(b.source_input_size()));
    CONCH_RUNTIME_RETURN_IF_ERROR(
        check_names(b.source_input(), inputs, path + ".source_input", "source input", file));
    CONCH_RUNTIME_RETURN_IF_ERROR(
        check_names(b.target_name(), outputs, path + ".target_name", "target output", file));
    std::set<std::string> targets(b.target_name().begin(), b.target_name().end());
    if (targets.size() != static_cast<size_t>(b.target_name_size()))
      return config_error(file, path + ".target_name", "a target output is named twice");
  }
  return status::ok();
}

} // namespace

status validate_tensors(const inference::ModelConfig& config, const std::string& file) {
  CONCH_RUNTIME_RETURN_IF_ERROR(check_tensors(
      config.input(), "input", config, file,
      [&](const inference::ModelInput& t, const std::string& path) {
        return check_format(t, path, file);
      }));
  CONCH_RUNTIME_RETURN_IF_ERROR(check_tensors(
      config.output(), "output", config, file,
      [](const inference::ModelOutput&, const std::string&) { return status::ok(); }));
  return check_batch_io(config, file);
}

} // namespace conch::runtime::model_config
