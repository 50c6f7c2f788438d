#include "conch/runtime/backends/identity/identity_backend.hpp"

#include <cstring>
#include <utility>

#include "conch/runtime/backends/common/execute_delay.hpp"
#include "conch/runtime/backends/common/job_output.hpp"
#include "conch/runtime/backends/common/model_config_view.hpp"

namespace conch::runtime::backends::identity {

namespace {

/// An output of the configuration and the input it returns.
struct pairing {
  std::string input;
  std::string output;
};

using pairings = std::vector<pairing>;

/// The output `name` with the data of `in`: the same buffer when the request
/// has no allocator, else a copy in memory from that allocator.
result<tensor> forward(inference_job& job, const tensor& in, const std::string& name) {
  if (!job.request().allocator) {
    common::mark_output_start(job);
    return tensor{name, in.type, in.shape, in.data};
  }
  if (!in.data.host_accessible())
    return unsupported("input '" + in.name + "' is in "
                       + std::string{memory_type_name(in.data.type())}
                       + " memory; the identity backend copies host memory only");
  auto out = common::allocate_output(job, name, in.type, in.shape, in.data.size());
  if (out && !in.data.empty())
    std::memcpy(out->data.data(), in.data.data(), in.data.size());
  return out;
}

class identity_instance final : public backend_instance {
 public:
  identity_instance(std::shared_ptr<const pairings> pairs, common::execute_delay delay)
    : pairs_(std::move(pairs)), delay_(delay) {}

  void execute(batch& jobs) override {
    delay_.wait(jobs);
    for (auto& job : jobs)
      run(*job);
  }

 private:
  void run(inference_job& job) {
    if (common::fail_if_cancelled(job))
      return;
    common::mark_input_end(job);
    const auto& request = job.request();
    std::vector<tensor> outputs;
    outputs.reserve(pairs_->size());
    for (const auto& p : *pairs_) {
      const tensor* in = request.input(p.input);
      // An optional input the request left out has no output to return.
      if (in == nullptr || !request.wants_output(p.output))
        continue;
      auto out = forward(job, *in, p.output);
      if (!out) {
        job.fail(out.error());
        return;
      }
      outputs.push_back(std::move(*out));
    }
    common::respond_with(job, std::move(outputs), true);
  }

  std::shared_ptr<const pairings> pairs_;
  common::execute_delay delay_;
};

class identity_model final : public backend_model {
 public:
  identity_model(std::shared_ptr<const pairings> pairs, common::execute_delay delay)
    : pairs_(std::move(pairs)), delay_(delay) {}

  result<std::unique_ptr<backend_instance>> create_instance(const instance_context&) override {
    return std::unique_ptr<backend_instance>{std::make_unique<identity_instance>(pairs_, delay_)};
  }

  bool blocking() const noexcept override { return delay_.configured(); }

 private:
  std::shared_ptr<const pairings> pairs_;
  common::execute_delay delay_;
};

/// Pairs output i with input i, checking that the two agree on the data type.
result<pairings> pair_outputs(const inference::ModelConfig& config) {
  if (config.output_size() == 0)
    return common::model_error(config, "the identity backend requires at least one output");
  if (config.output_size() > config.input_size())
    return common::model_error(config, "the identity backend returns input i as output i, but "
                                         "the configuration has "
                                         + std::to_string(config.output_size())
                                         + " outputs and only "
                                         + std::to_string(config.input_size()) + " inputs");
  pairings out;
  for (int i = 0; i < config.output_size(); ++i) {
    const auto& in = config.input(i);
    const auto& o = config.output(i);
    if (in.data_type() != o.data_type())
      return common::model_error(
        config, "output '" + o.name() + "' has data type "
                  + std::string{config_type_name(common::to_data_type(o.data_type()))}
                  + " but input '" + in.name() + "', which it returns, has "
                  + std::string{config_type_name(common::to_data_type(in.data_type()))});
    out.push_back({in.name(), o.name()});
  }
  return out;
}

result<std::unique_ptr<backend_model>> load(const model_context& ctx) {
  if (!ctx.config)
    return internal_error("model '" + ctx.name + "': no configuration");
  auto pairs = pair_outputs(*ctx.config);
  if (!pairs)
    return pairs.error();
  auto delay = common::execute_delay::from_config(*ctx.config);
  if (!delay)
    return delay.error();
  auto shared = std::make_shared<const pairings>(std::move(*pairs));
  return std::unique_ptr<backend_model>{std::make_unique<identity_model>(shared, *delay)};
}

} // namespace

backend_entry make_identity_backend() {
  return {"identity", load, nullptr};
}

} // namespace conch::runtime::backends::identity
