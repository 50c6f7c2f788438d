#pragma once

// Test support for the ensemble backend's unit tests: ensemble
// configurations built in code and a gateway whose models are functions.
// Header-only and linked into tests only.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "conch/runtime/backends/backend.hpp"
#include "conch/runtime/backends/test_support/harness.hpp"

namespace conch::runtime::backends::ensemble::test_support {

using step_map = std::vector<std::pair<std::string, std::string>>;

/// Appends a step running `model` to an ensemble configuration.
inline void add_step(inference::ModelConfig& config, const std::string& model,
                     const step_map& inputs, const step_map& outputs, int64_t version = -1) {
  auto* step = config.mutable_ensemble_scheduling()->add_step();
  step->set_model_name(model);
  step->set_model_version(version);
  for (const auto& [k, v] : inputs)
    (*step->mutable_input_map())[k] = v;
  for (const auto& [k, v] : outputs)
    (*step->mutable_output_map())[k] = v;
}

/// An ensemble configuration named `name` with FP32 inputs and outputs.
inline inference::ModelConfig ensemble_config(const std::string& name,
                                              const std::vector<std::string>& inputs,
                                              const std::vector<std::string>& outputs) {
  inference::ModelConfig config;
  config.set_name(name);
  config.set_platform("ensemble");
  for (const auto& i : inputs)
    backends::test_support::add_input(config, i, inference::TYPE_FP32);
  for (const auto& o : outputs)
    backends::test_support::add_output(config, o, inference::TYPE_FP32);
  return config;
}

/// A gateway whose models are functions called on the submitting thread
/// (as the direct lane would run them), or held for the test to answer
/// later when the model is `deferred`.
class fake_gateway final : public model_gateway {
 public:
  using model_fn = std::function<void(job_ptr)>;

  void add(const inference::ModelConfig& config, model_fn fn) {
    configs_[config.name()] = std::make_shared<const inference::ModelConfig>(config);
    fns_[config.name()] = std::move(fn);
  }

  void submit(job_ptr job) override {
    std::unique_lock<std::mutex> lock{mu_};
    submitted.push_back(job->request().model_name);
    auto fn = fns_.find(job->request().model_name);
    if (fn == fns_.end()) {
      lock.unlock();
      job->fail(unavailable("Request for unknown model: '" + job->request().model_name
                            + "' is not found"));
      return;
    }
    auto f = fn->second;
    lock.unlock();
    f(std::move(job));
  }

  result<std::shared_ptr<const inference::ModelConfig>>
  config_of(const std::string& name, int64_t) const override {
    auto i = configs_.find(name);
    if (i == configs_.end())
      return unavailable("Request for unknown model: '" + name + "' is not found");
    return i->second;
  }

  std::vector<std::string> submitted;

 private:
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const inference::ModelConfig>> configs_;
  std::map<std::string, model_fn> fns_;
};

/// A model configuration with FP32 inputs and outputs.
inline inference::ModelConfig model_config(const std::string& name,
                                           const std::vector<std::string>& inputs,
                                           const std::vector<std::string>& outputs) {
  auto config = backends::test_support::make_config(name, "fake");
  for (const auto& i : inputs)
    backends::test_support::add_input(config, i, inference::TYPE_FP32);
  for (const auto& o : outputs)
    backends::test_support::add_output(config, o, inference::TYPE_FP32);
  return config;
}

} // namespace conch::runtime::backends::ensemble::test_support
