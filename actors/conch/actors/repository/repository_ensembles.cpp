// What the repository does for ensembles: loads their composing models
// first, gives them the composing models' transaction policy, and drains
// them before the models they call.

#include <algorithm>
#include <functional>
#include <set>

#include "conch/actors/repository/model_repository.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

using runtime::status;

namespace {

// The models an ensemble's steps run, once each, in step order.
std::vector<std::string> composing_models(const inference::ModelConfig& config) {
  std::vector<std::string> out;
  for (const auto& step : config.ensemble_scheduling().step())
    if (std::find(out.begin(), out.end(), step.model_name()) == out.end())
      out.push_back(step.model_name());
  return out;
}

// A path from `from` back to `target` through the models ensembles wait
// for, into `path`; false when there is none.
bool path_to(const std::map<std::string, std::vector<std::string>>& waiting_on,
             const std::string& from, const std::string& target, std::vector<std::string>& path,
             std::set<std::string>& seen) {
  path.push_back(from);
  if (from == target && path.size() > 1)
    return true;
  auto i = waiting_on.find(from);
  if (i != waiting_on.end() && seen.insert(from).second)
    for (const auto& next : i->second)
      if (path_to(waiting_on, next, target, path, seen))
        return true;
  path.pop_back();
  return false;
}

} // namespace

void model_repository::load_composing(const std::string& name,
                                      const inference::ModelConfig& config, done_fn then) {
  auto models = composing_models(config);
  waiting_on_[name] = models;
  // Who calls whom: the ensembles loaded, then the ones loading (this one
  // as it will be), so a cycle through a loaded ensemble shows too.
  auto calls = waiting_on_;
  for (const auto& [model, record] : records_)
    for (const auto& [v, entry] : record.versions)
      if (entry.config && entry.config->has_ensemble_scheduling() && !waiting_on_.count(model))
        for (const auto& m : composing_models(*entry.config))
          calls[model].push_back(m);
  std::vector<std::string> path;
  std::set<std::string> seen;
  if (path_to(calls, name, name, path, seen)) {
    waiting_on_.erase(name);
    std::string chain;
    for (const auto& m : path)
      chain += (chain.empty() ? "" : " -> ") + m;
    return then(runtime::invalid_argument("circular dependency between ensembles: " + chain));
  }
  if (models.empty()) {
    waiting_on_.erase(name);
    return then(status::ok());
  }
  auto remaining = std::make_shared<size_t>(models.size());
  auto one_done = [remaining, then](status) {
    if (--*remaining > 0)
      return;
    then(status::ok());
  };
  for (const auto& m : models)
    run_exclusive(
      m,
      [this, m](done_fn done) {
        if (stopping_)
          return done(runtime::unavailable("server is stopping"));
        auto r = records_.find(m);
        bool ready = r != records_.end()
                     && std::any_of(r->second.versions.begin(), r->second.versions.end(),
                                    [](const auto& v) { return v.second.state == model_state::ready; });
        if (ready)
          return done(status::ok());
        load(m, nullptr, std::move(done));
      },
      one_done);
}

std::shared_ptr<const inference::ModelConfig> model_repository::with_composing_policy(
  std::shared_ptr<const inference::ModelConfig> config) const {
  if (!config || !config->has_ensemble_scheduling()
      || config->model_transaction_policy().decoupled())
    return config;
  for (const auto& step : config->ensemble_scheduling().step()) {
    auto entry =
      table_->resolve(step.model_name(), step.model_version() > 0 ? step.model_version() : -1);
    if (entry && (*entry)->config && (*entry)->config->model_transaction_policy().decoupled()) {
      auto decoupled = std::make_shared<inference::ModelConfig>(*config);
      decoupled->mutable_model_transaction_policy()->set_decoupled(true);
      return decoupled;
    }
  }
  return config;
}

std::vector<std::vector<scheduler_actor>> model_repository::drain_stages() const {
  // How deep each model nests ensembles: 0 for a model that is none, one
  // more than its deepest composing model for an ensemble.
  std::map<std::string, size_t> depth;
  std::function<size_t(const inference::ModelConfig*, size_t)> depth_of_config;
  auto depth_of = [&](const std::string& name, size_t guard) -> size_t {
    if (auto known = depth.find(name); known != depth.end())
      return known->second;
    size_t d = 0;
    if (auto r = records_.find(name); r != records_.end())
      for (const auto& [v, entry] : r->second.versions)
        d = std::max(d, depth_of_config(entry.config.get(), guard + 1));
    depth[name] = d;
    return d;
  };
  depth_of_config = [&](const inference::ModelConfig* config, size_t guard) -> size_t {
    size_t d = 0;
    if (config != nullptr && config->has_ensemble_scheduling() && guard <= records_.size())
      for (const auto& m : composing_models(*config))
        d = std::max(d, 1 + depth_of(m, guard));
    return d;
  };
  std::vector<std::vector<scheduler_actor>> stages(1);
  for (const auto& s : schedulers_) {
    // Retiring versions too: the configuration each scheduler serves.
    auto c = scheduler_configs_.find(s.address());
    size_t d = c == scheduler_configs_.end() ? 0 : depth_of_config(c->second.get(), 0);
    if (stages.size() <= d)
      stages.resize(d + 1);
    stages[d].push_back(s);
  }
  std::reverse(stages.begin(), stages.end());
  return stages;
}

void model_repository::drain_in_stages(std::vector<std::vector<scheduler_actor>> stages, size_t next,
                                       std::function<void()> then) {
  if (next >= stages.size())
    return then();
  auto schedulers = stages[next];
  drain(std::move(schedulers), [this, stages = std::move(stages), next, then]() mutable {
    drain_in_stages(std::move(stages), next + 1, std::move(then));
  });
}

bool model_repository::composed_by_an_ensemble(const std::string& model) const {
  for (const auto& [ensemble, models] : waiting_on_)
    if (std::find(models.begin(), models.end(), model) != models.end())
      return true;
  // Versions being unloaded no longer count: unloads go in request order.
  for (const auto& [name, record] : records_)
    for (const auto& [v, entry] : record.versions)
      if (entry.scheduler && entry.state != model_state::unloading && entry.config
          && entry.config->has_ensemble_scheduling()) {
        auto models = composing_models(*entry.config);
        if (std::find(models.begin(), models.end(), model) != models.end())
          return true;
      }
  return false;
}

void model_repository::unload_dependents(std::vector<std::string> models, done_fn done) {
  // Whether `model` goes with the ensemble, asked again when its turn
  // comes: a load by name or another ensemble may have claimed it since.
  auto goes = [this](const std::string& model) {
    auto r = records_.find(model);
    if (r == records_.end() || r->second.loaded_by_name || composed_by_an_ensemble(model))
      return false;
    return std::any_of(r->second.versions.begin(), r->second.versions.end(),
                       [](const auto& v) { return static_cast<bool>(v.second.scheduler); });
  };
  models.erase(std::remove_if(models.begin(), models.end(),
                              [&](const std::string& m) { return !goes(m); }),
               models.end());
  if (models.empty())
    return done(status::ok());
  // The ensemble's own unload has succeeded whatever happens to these; a
  // dependent that cannot go is logged and stays.
  auto remaining = std::make_shared<size_t>(models.size());
  for (const auto& m : models)
    run_exclusive(
      m,
      [this, m, goes](done_fn unloaded) {
        // A stop unloads everything itself.
        if (stopping_ || !goes(m))
          return unloaded(status::ok());
        CONCH_LOG_INFO << "unloading '" << m << "', which only the unloaded ensemble ran";
        unload(m, true, std::move(unloaded));
      },
      [m, remaining, done](status st) {
        if (!st)
          CONCH_LOG_WARN << "failed to unload dependent model '" << m << "': " << st.message();
        if (--*remaining == 0)
          done(status::ok());
      });
}

} // namespace conch::actors
