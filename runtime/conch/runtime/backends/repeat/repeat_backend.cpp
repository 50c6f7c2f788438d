#include "conch/runtime/backends/repeat/repeat_backend.hpp"

#include <cstring>

#include "conch/runtime/backends/common/execute_delay.hpp"
#include "conch/runtime/backends/common/job_output.hpp"
#include "conch/runtime/backends/common/model_config_view.hpp"
#include "conch/runtime/backends/repeat/stream_plan.hpp"
#include "conch/runtime/bytes_elements.hpp"

namespace conch::runtime::backends::repeat {

namespace {

/// Output "OUT" of response `i`: element i of "IN", shape [1].
result<tensor> out_element(inference_job& job, const stream_plan& plan, size_t i) {
  const tensor& in = *plan.in;
  if (in.type == data_type::bytes) {
    std::string serialised;
    append_bytes_element(serialised, plan.bytes_elements[i]);
    auto out = common::allocate_output(job, "OUT", in.type, {1}, serialised.size());
    if (out)
      std::memcpy(out->data.data(), serialised.data(), serialised.size());
    return out;
  }
  auto size = element_size(in.type);
  auto out = common::allocate_output(job, "OUT", in.type, {1}, size);
  if (out)
    std::memcpy(out->data.data(), in.data.data() + i * size, size);
  return out;
}

/// Output "IDX" of response `i`: i as UINT32, shape [1].
result<tensor> idx_element(inference_job& job, size_t i) {
  auto out = common::allocate_output(job, "IDX", data_type::uint32, {1}, sizeof(uint32_t));
  if (out) {
    auto value = static_cast<uint32_t>(i);
    std::memcpy(out->data.data(), &value, sizeof value);
  }
  return out;
}

/// The outputs of response `i`, as far as the request wants them.
result<std::vector<tensor>> outputs_of(inference_job& job, const stream_plan& plan, size_t i) {
  std::vector<tensor> outputs;
  if (plan.in != nullptr && job.request().wants_output("OUT")) {
    auto out = out_element(job, plan, i);
    if (!out)
      return out.error();
    outputs.push_back(std::move(*out));
  }
  if (job.request().wants_output("IDX")) {
    auto idx = idx_element(job, i);
    if (!idx)
      return idx.error();
    outputs.push_back(std::move(*idx));
  }
  return outputs;
}

class repeat_instance final : public backend_instance {
 public:
  repeat_instance(common::execute_delay delay, bool has_delay_input)
    : delay_(delay), has_delay_input_(has_delay_input) {}

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
    auto plan = plan_stream(job.request());
    if (!plan)
      return plan.error();
    // Waiting blocks the thread; only a model declared blocking may do it.
    if (!has_delay_input_)
      plan->delays_ms.clear();
    auto cancelled = [&job] { return job.is_cancelled(); };
    for (size_t i = 0; i < plan->count; ++i) {
      common::wait_unless(plan->delay(i), cancelled);
      if (common::fail_if_cancelled(job))
        return status::ok();
      auto outputs = outputs_of(job, *plan, i);
      if (!outputs)
        return outputs.error();
      common::respond_with(job, std::move(*outputs), false);
    }
    if (!common::fail_if_cancelled(job))
      common::respond_with(job, {}, true);
    return status::ok();
  }

  common::execute_delay delay_;
  bool has_delay_input_;
};

class repeat_model final : public backend_model {
 public:
  repeat_model(common::execute_delay delay, bool has_delay_input)
    : delay_(delay), has_delay_input_(has_delay_input) {}

  result<std::unique_ptr<backend_instance>> create_instance(const instance_context&) override {
    return std::unique_ptr<backend_instance>{std::make_unique<repeat_instance>(delay_, has_delay_input_)};
  }

  // A request can only carry "DELAY" when the configuration declares it, so
  // without it (and without execute_delay_ms) the model never sleeps.
  bool blocking() const noexcept override { return delay_.configured() || has_delay_input_; }

 private:
  common::execute_delay delay_;
  bool has_delay_input_;
};

/// Checks that output `name` exists with data type `type`.
status require_output(const inference::ModelConfig& config, const std::string& name,
                      inference::DataType type) {
  const auto* out = common::find_output(config, name);
  if (out == nullptr)
    return common::model_error(config, "the repeat backend requires output '" + name + "'");
  if (out->data_type() != type)
    return common::model_error(
      config, "output '" + name + "' must have data type "
                + std::string{config_type_name(common::to_data_type(type))} + ", got "
                + std::string{config_type_name(common::to_data_type(out->data_type()))});
  return status::ok();
}

status check_config(const inference::ModelConfig& config) {
  if (!config.model_transaction_policy().decoupled())
    return common::model_error(config, "repeat backend requires a decoupled model");
  CONCH_RUNTIME_RETURN_IF_ERROR(require_output(config, "IDX", inference::TYPE_UINT32));
  if (const auto* in = common::find_input(config, "IN"))
    CONCH_RUNTIME_RETURN_IF_ERROR(require_output(config, "OUT", in->data_type()));
  const auto* delay = common::find_input(config, "DELAY");
  if (delay != nullptr && delay->data_type() != inference::TYPE_UINT32)
    return common::model_error(config, "input 'DELAY' must have data type TYPE_UINT32");
  return status::ok();
}

result<std::unique_ptr<backend_model>> load(const model_context& ctx) {
  if (!ctx.config)
    return internal_error("model '" + ctx.name + "': no configuration");
  CONCH_RUNTIME_RETURN_IF_ERROR(check_config(*ctx.config));
  auto delay = common::execute_delay::from_config(*ctx.config);
  if (!delay)
    return delay.error();
  bool has_delay_input = common::find_input(*ctx.config, "DELAY") != nullptr;
  return std::unique_ptr<backend_model>{std::make_unique<repeat_model>(*delay, has_delay_input)};
}

} // namespace

backend_entry make_repeat_backend() {
  return {"repeat", load, nullptr};
}

} // namespace conch::runtime::backends::repeat
