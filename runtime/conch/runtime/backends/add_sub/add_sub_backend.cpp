#include "conch/runtime/backends/add_sub/add_sub_backend.hpp"

#include <array>

#include "conch/runtime/backends/add_sub/element_wise.hpp"
#include "conch/runtime/backends/common/execute_delay.hpp"
#include "conch/runtime/backends/common/job_output.hpp"
#include "conch/runtime/backends/common/model_config_view.hpp"

namespace conch::runtime::backends::add_sub {

namespace {

std::string type_name(data_type t) {
  return std::string{data_type_name(t)};
}

/// Checks that the two inputs of a request can be combined into outputs of
/// `type`: same data type, same shape, bytes that match both, host memory.
status check_inputs(const tensor& a, const tensor& b, data_type type) {
  if (a.type != b.type)
    return invalid_argument("input '" + a.name + "' has data type " + type_name(a.type)
                            + " but input '" + b.name + "' has " + type_name(b.type)
                            + "; add_sub requires one data type");
  if (a.type != type)
    return invalid_argument("inputs have data type " + type_name(a.type)
                            + " but the model's outputs have " + type_name(type));
  if (!is_supported_type(a.type))
    return invalid_argument("add_sub does not support data type " + type_name(a.type));
  if (a.shape != b.shape)
    return invalid_argument("input '" + a.name + "' has shape " + shape_string(a.shape)
                            + " but input '" + b.name + "' has shape " + shape_string(b.shape)
                            + "; add_sub requires one shape");
  CONCH_RUNTIME_RETURN_IF_ERROR(a.validate_data());
  CONCH_RUNTIME_RETURN_IF_ERROR(b.validate_data());
  if (!a.data.host_accessible() || !b.data.host_accessible())
    return unsupported("add_sub reads inputs from host memory only");
  return status::ok();
}

class add_sub_instance final : public backend_instance {
 public:
  add_sub_instance(data_type type, common::execute_delay delay) : type_(type), delay_(delay) {}

  void execute(batch& jobs) override {
    delay_.wait(jobs);
    for (auto& job : jobs)
      if (auto s = run(*job); !s.is_ok())
        job->fail(std::move(s));
  }

 private:
  status run(inference_job& job) {
    if (common::fail_if_cancelled(job))
      return status::ok();
    common::mark_input_end(job);
    const auto& request = job.request();
    const tensor* a = request.input("INPUT0");
    const tensor* b = request.input("INPUT1");
    if (a == nullptr || b == nullptr)
      return invalid_argument("add_sub expects inputs 'INPUT0' and 'INPUT1'");
    CONCH_RUNTIME_RETURN_IF_ERROR(check_inputs(*a, *b, type_));
    std::vector<tensor> outputs;
    std::array<std::byte*, 2> targets{nullptr, nullptr};
    for (size_t i = 0; i < targets.size(); ++i) {
      std::string name = i == 0 ? "OUTPUT0" : "OUTPUT1";
      if (!request.wants_output(name))
        continue;
      auto out = common::allocate_output(job, name, type_, a->shape, a->data.size());
      if (!out)
        return out.error();
      targets[i] = out->data.data();
      outputs.push_back(std::move(*out));
    }
    auto count = a->data.size() / element_size(type_);
    add_sub_elements(type_, a->data.data(), b->data.data(), targets[0], targets[1], count);
    common::respond_with(job, std::move(outputs), true);
    return status::ok();
  }

  data_type type_;
  common::execute_delay delay_;
};

class add_sub_model final : public backend_model {
 public:
  add_sub_model(data_type type, common::execute_delay delay) : type_(type), delay_(delay) {}

  result<std::unique_ptr<backend_instance>> create_instance(const instance_context&) override {
    return std::unique_ptr<backend_instance>{std::make_unique<add_sub_instance>(type_, delay_)};
  }

  bool blocking() const noexcept override { return delay_.configured(); }

 private:
  data_type type_;
  common::execute_delay delay_;
};

/// The one data type of the four tensors add_sub needs from `config`.
result<data_type> check_config(const inference::ModelConfig& config) {
  for (const char* name : {"INPUT0", "INPUT1"})
    if (common::find_input(config, name) == nullptr)
      return common::model_error(config, std::string{"the add_sub backend requires input '"}
                                           + name + "'");
  for (const char* name : {"OUTPUT0", "OUTPUT1"})
    if (common::find_output(config, name) == nullptr)
      return common::model_error(config, std::string{"the add_sub backend requires output '"}
                                           + name + "'");
  auto type = common::to_data_type(common::find_input(config, "INPUT0")->data_type());
  if (!is_supported_type(type))
    return common::model_error(config, "the add_sub backend does not support data type "
                                         + std::string{config_type_name(type)});
  auto check = [&](const char* name, inference::DataType t) -> status {
    if (common::to_data_type(t) == type)
      return status::ok();
    return common::model_error(config, std::string{"'"} + name + "' has data type "
                                         + std::string{config_type_name(common::to_data_type(t))}
                                         + " but 'INPUT0' has "
                                         + std::string{config_type_name(type)}
                                         + "; add_sub requires one data type for all four");
  };
  CONCH_RUNTIME_RETURN_IF_ERROR(check("INPUT1", common::find_input(config, "INPUT1")->data_type()));
  for (const char* name : {"OUTPUT0", "OUTPUT1"})
    CONCH_RUNTIME_RETURN_IF_ERROR(check(name, common::find_output(config, name)->data_type()));
  return type;
}

result<std::unique_ptr<backend_model>> load(const model_context& ctx) {
  if (!ctx.config)
    return internal_error("model '" + ctx.name + "': no configuration");
  auto type = check_config(*ctx.config);
  if (!type)
    return type.error();
  auto delay = common::execute_delay::from_config(*ctx.config);
  if (!delay)
    return delay.error();
  return std::unique_ptr<backend_model>{std::make_unique<add_sub_model>(*type, *delay)};
}

} // namespace

backend_entry make_add_sub_backend() {
  return {"add_sub", load, nullptr};
}

} // namespace conch::runtime::backends::add_sub
