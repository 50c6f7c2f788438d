#include "conch/runtime/backends/ensemble/ensemble_backend.hpp"

#include <utility>

#include "conch/runtime/backends/ensemble/ensemble_run.hpp"

namespace conch::runtime::backends::ensemble {

namespace {

class ensemble_instance final : public backend_instance {
 public:
  explicit ensemble_instance(std::shared_ptr<const ensemble_plan> plan) : plan_(std::move(plan)) {}

  void execute(batch& jobs) override {
    for (auto& job : jobs)
      ensemble_run::start(plan_, job);
  }

 private:
  std::shared_ptr<const ensemble_plan> plan_;
};

class ensemble_model final : public backend_model {
 public:
  explicit ensemble_model(std::shared_ptr<const ensemble_plan> plan) : plan_(std::move(plan)) {}

  result<std::unique_ptr<backend_instance>> create_instance(const instance_context&) override {
    return std::unique_ptr<backend_instance>{std::make_unique<ensemble_instance>(plan_)};
  }

  bool blocking() const noexcept override { return false; }

 private:
  std::shared_ptr<const ensemble_plan> plan_;
};

result<std::unique_ptr<backend_model>> load(const model_context& ctx) {
  if (!ctx.config)
    return internal_error("model '" + ctx.name + "': no configuration");
  const auto& config = *ctx.config;
  if (!config.has_ensemble_scheduling())
    return invalid_argument("model '" + ctx.name
                            + "': the ensemble backend needs 'ensemble_scheduling'");
  if (!ctx.models)
    return unavailable("ensemble '" + ctx.name + "': the server's models cannot be reached");
  auto graph = ensemble_graph::build(config);
  if (!graph)
    return graph.error();
  if (auto st = check_steps(*graph, config, *ctx.models); !st)
    return st;
  auto plan = std::make_shared<ensemble_plan>();
  plan->name = ctx.name;
  plan->graph = std::move(*graph);
  plan->models = ctx.models;
  plan->decoupled = config.model_transaction_policy().decoupled();
  return std::unique_ptr<backend_model>{std::make_unique<ensemble_model>(std::move(plan))};
}

} // namespace

backend_entry make_ensemble_backend() {
  return {"ensemble", load, nullptr};
}

} // namespace conch::runtime::backends::ensemble
