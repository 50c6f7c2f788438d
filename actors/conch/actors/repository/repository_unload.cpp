// Unloading a model and draining schedulers: model_repository::unload, drain.

#include <algorithm>

#include "conch/actors/repository/model_repository.hpp"
#include "conch/runtime/logging/log.hpp"
#include "conch/runtime/repository/override_directory.hpp"

namespace conch::actors {

using runtime::status;

void model_repository::unload(const std::string& name, bool dependents, done_fn done) {
  // The stop drains every version itself, ensembles first: an unload now
  // would take composing models away from the ensembles still draining.
  if (stopping_)
    return done(runtime::unavailable("server is stopping"));
  auto& record = records_[name];
  std::vector<scheduler_actor> schedulers;
  // The models the unloading versions' ensemble steps run, for dependents.
  std::vector<std::string> composing;
  for (auto& [v, entry] : record.versions)
    if (entry.scheduler) {
      entry.state = model_state::unloading;
      schedulers.push_back(entry.scheduler);
      if (dependents && entry.config)
        for (const auto& step : entry.config->ensemble_scheduling().step())
          if (std::find(composing.begin(), composing.end(), step.model_name()) == composing.end())
            composing.push_back(step.model_name());
    }
  record.loaded_by_name = false;
  if (schedulers.empty()) {
    if (record.versions.empty() && !record.last_error.empty()) {
      // A model that failed to load: unloading it forgets the failure, and
      // readiness no longer waits for it (Triton marks it unloaded).
      record.last_error.clear();
      return publish([done] { done(status::ok()); });
    }
    if (record.versions.empty())
      return done(runtime::invalid_argument("failed to unload '" + name
                                            + "', no version is available"));
    return done(status::ok());
  }
  CONCH_LOG_INFO << "unloading: " << name;
  // Stop routing to the model first, then let its queued work finish.
  publish([this, name, schedulers = std::move(schedulers), composing = std::move(composing),
           done]() mutable {
    drain(std::move(schedulers), [this, name, composing = std::move(composing), done] {
      auto& record = records_[name];
      for (auto& [v, entry] : record.versions) {
        if (entry.state == model_state::unloading)
          CONCH_LOG_INFO << "successfully unloaded '" << name << "' version " << v;
        entry.state = model_state::unavailable;
        entry.reason = "unloaded";
        entry.scheduler = nullptr;
        // The version has drained: its series leave the exposition now,
        // whoever still holds its record.
        if (entry.stats)
          entry.stats->retire_metrics();
        entry.stats = nullptr;
        entry.lane = nullptr;
        entry.readiness = nullptr;
      }
      if (!record.override_dir.empty()) {
        runtime::repository::remove_override_directory(record.override_dir);
        record.override_dir.clear();
      }
      record.fingerprint = 0;
      publish([this, composing, done] {
        if (composing.empty())
          return done(status::ok());
        unload_dependents(composing, done);
      });
    });
  });
}

void model_repository::drain(std::vector<scheduler_actor> schedulers, std::function<void()> then) {
  if (schedulers.empty()) {
    then();
    return;
  }
  auto remaining = std::make_shared<size_t>(schedulers.size());
  auto one_done = [remaining, then] {
    if (--*remaining == 0)
      then();
  };
  for (auto& s : schedulers)
    request(s, caf::infinite, stop_atom_v)
      .then([one_done](status&) { one_done(); }, [one_done](caf::error&) { one_done(); });
}

} // namespace conch::actors
