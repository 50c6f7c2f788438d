#include "conch/runtime/model_config/validate_paths.hpp"

#include "conch/runtime/contained_path.hpp"
#include "conch/runtime/model_config/config_error.hpp"

namespace conch::runtime::model_config {

namespace {

status check_name(const std::string& name, const std::string& file, const std::string& field,
                  const char* folder) {
  auto st = check_relative_name(name);
  if (st.is_ok())
    return st;
  return config_error(file, field,
                      st.message() + " (it names a file in the " + folder + ")");
}

status check_model_files(const inference::ModelConfig& c, const std::string& file) {
  CONCH_RUNTIME_RETURN_IF_ERROR(check_name(c.default_model_filename(), file,
                                           "default_model_filename", "version directory"));
  for (const auto& [arch, name] : c.cc_model_filenames())
    CONCH_RUNTIME_RETURN_IF_ERROR(
      check_name(name, file, "cc_model_filenames[" + arch + "]", "version directory"));
  for (int i = 0; i < c.output_size(); ++i)
    CONCH_RUNTIME_RETURN_IF_ERROR(
      check_name(c.output(i).label_filename(), file,
                 indexed("output", static_cast<size_t>(i)) + ".label_filename",
                 "model directory"));
  return status::ok();
}

status check_data_files(const inference::ModelConfig& c, const std::string& file) {
  for (int i = 0; i < c.model_warmup_size(); ++i)
    for (const auto& [input, data] : c.model_warmup(i).inputs())
      CONCH_RUNTIME_RETURN_IF_ERROR(check_name(
        data.input_data_file(), file,
        indexed("model_warmup", static_cast<size_t>(i)) + ".inputs[" + input
          + "].input_data_file",
        "model's warmup folder"));
  const auto& states = c.sequence_batching().state();
  for (int i = 0; i < states.size(); ++i)
    for (int j = 0; j < states[i].initial_state_size(); ++j)
      CONCH_RUNTIME_RETURN_IF_ERROR(check_name(
        states[i].initial_state(j).data_file(), file,
        indexed(indexed("sequence_batching.state", static_cast<size_t>(i)) + ".initial_state",
                static_cast<size_t>(j))
          + ".data_file",
        "model's initial_state folder"));
  return status::ok();
}

} // namespace

status validate_paths(const inference::ModelConfig& config, const std::string& file) {
  CONCH_RUNTIME_RETURN_IF_ERROR(check_model_files(config, file));
  return check_data_files(config, file);
}

} // namespace conch::runtime::model_config
