// Loading and reloading a model: model_repository::load and its helpers.

#include <cxxabi.h>

#include <algorithm>
#include <chrono>

#include "conch/actors/scheduling/model_scheduler.hpp"
#include "conch/actors/repository/model_repository.hpp"
#include "conch/actors/scheduling/scheduler_hooks.hpp"
#include "conch/runtime/backends/registry.hpp"
#include "conch/runtime/clock.hpp"
#include "conch/runtime/logging/log.hpp"
#include "conch/runtime/repository/fingerprint.hpp"
#include "conch/runtime/repository/label_files.hpp"
#include "conch/runtime/repository/model_config_loader.hpp"
#include "conch/runtime/repository/override_directory.hpp"
#include "conch/runtime/repository/scan.hpp"
#include "conch/runtime/repository/versions.hpp"

namespace conch::actors {

namespace fs = std::filesystem;
namespace repo = runtime::repository;
using runtime::status;

namespace {

std::map<std::string, std::string> metric_tags(const inference::ModelConfig& config) {
  std::map<std::string, std::string> tags;
  for (const auto& [k, v] : config.metric_tags())
    tags.emplace(k, v);
  return tags;
}

// The statistics records of `old` and `failed` that no version of `loaded`
// keeps (a compatible reload keeps its version's record).
std::vector<std::shared_ptr<runtime::statistics::model_statistics>> dropped_statistics(
  const std::map<int64_t, version_entry>& old, const std::map<int64_t, version_entry>& loaded,
  std::vector<std::shared_ptr<runtime::statistics::model_statistics>> failed) {
  auto kept = [&loaded](const auto& stats) {
    for (const auto& [v, entry] : loaded)
      if (entry.stats == stats)
        return true;
    return false;
  };
  std::vector<std::shared_ptr<runtime::statistics::model_statistics>> dropped;
  for (auto& stats : failed)
    if (!kept(stats))
      dropped.push_back(std::move(stats));
  for (const auto& [v, entry] : old)
    if (entry.stats && !kept(entry.stats))
      dropped.push_back(entry.stats);
  return dropped;
}

// The optional series the config asks for: decoupled models get the
// first-response histogram, with the buckets of its model_metrics control.
runtime::statistics::model_metric_options metric_options(const inference::ModelConfig& config,
                                                         bool cached) {
  runtime::statistics::model_metric_options options;
  options.response_cache = cached;
  options.decoupled = config.model_transaction_policy().decoupled();
  for (const auto& control : config.model_metrics().metric_control())
    if (control.metric_identifier().family() == "nv_inference_first_response_histogram_ms")
      options.first_response_buckets.assign(control.histogram_options().buckets().begin(),
                                            control.histogram_options().buckets().end());
  return options;
}

} // namespace

version_entry model_repository::start_version(const std::string& name, int64_t version,
                                              std::shared_ptr<const inference::ModelConfig> config,
                                              const fs::path& model_path,
                                              const fs::path& repository,
                                              const runtime::backends::model_factory& factory) {
  version_entry entry;
  entry.version = version;
  entry.state = model_state::loading;
  entry.config = config;
  // An ensemble made decoupled by a composing model streams: nothing to
  // cache (Triton refuses to load it).
  bool cached = cache_ && config->response_cache().enable()
                && !config->model_transaction_policy().decoupled();
  if (cache_ && config->response_cache().enable() && !cached)
    CONCH_LOG_WARN << "'" << name << "': the response cache is not used for a decoupled ensemble";
  auto& record = records_[name];
  auto previous = record.versions.find(version);
  bool compatible = previous != record.versions.end() && previous->second.stats
                    && previous->second.config
                    && previous->second.config->model_transaction_policy().decoupled()
                         == config->model_transaction_policy().decoupled()
                    && previous->second.config->max_batch_size() == config->max_batch_size();
  if (compatible)
    entry.stats = previous->second.stats; // a reload keeps the version's statistics
  else
    entry.stats = std::make_shared<runtime::statistics::model_statistics>(
      name, version, config->model_transaction_policy().decoupled(), config->max_batch_size(),
      metrics_
        ? metrics_->add_model(name, version, metric_tags(*config), metric_options(*config, cached))
        : nullptr);
  scheduler_spec spec;
  spec.context.config = config;
  spec.context.name = name;
  spec.context.version = version;
  spec.context.model_path = model_path;
  spec.context.version_path = model_path / std::to_string(version);
  spec.context.repository_path = repository;
  spec.context.models = gateway_;
  spec.factory = factory;
  spec.stats = entry.stats;
  spec.restart_budget = options_.restart_budget;
  spec.allow_detached = allow_detached_;
  if (cached)
    spec.cache = cache_;
  // A cached model's requests look the cache up in its scheduler.
  if (lane_eligible(*config) && !spec.cache)
    spec.lane = entry.lane = std::make_shared<direct_lane>(instance_contexts(*config).size());
  spec.readiness = entry.readiness
    = std::make_shared<model_readiness>(instance_contexts(*config).size());
  entry.scheduler = spawn<model_scheduler, caf::monitored>(std::move(spec));
  schedulers_.push_back(entry.scheduler);
  scheduler_configs_[entry.scheduler.address()] = config;
  return entry;
}

void model_repository::load(const std::string& name, load_parameters_ptr params, done_fn done) {
  if (stopping_)
    return done(runtime::unavailable("server is stopping"));
  // An ensemble counts as running its composing models from load_composing
  // until its load answers, while its instances start too.
  done = [this, name, done = std::move(done)](status st) {
    waiting_on_.erase(name);
    done(std::move(st));
  };
  auto started = runtime::now_ns();
  load_request request{roots_, name, std::move(params), override_base_, {}};
  request.options.strict_model_config = options_.strict_model_config;
  request.options.gpu_count = gpu_count_;
  request.options.backend_directory = options_.backend_directory;
  // The disk, and a backend's configuration completion (which may run
  // Python), are read off the actor system's threads.
  off_thread(
    [this, request = std::move(request), started, done]() -> std::function<void()> {
      auto prepared = std::make_shared<prepared_load>(prepare_load(request));
      return [this, name = request.name, prepared, started, done] {
        const auto& config = prepared->config;
        if (stopping_ || !prepared->error || !config || !config->has_ensemble_scheduling())
          return start_load(name, *prepared, started, done);
        // The models its steps run load first.
        load_composing(name, *config, [this, name, prepared, started, done](status st) {
          if (!st)
            return fail_load(name, st, done);
          start_load(name, *prepared, started, done);
        });
      };
    },
    // The work or its continuation threw. At the repository's end the
    // operation is answered with every other one still open (on_exit).
    [this, name, done] {
      if (!exiting_)
        done(runtime::internal_error("failed to load '" + name + "': the load was abandoned"));
    });
}

void model_repository::load_by_name(const std::string& name, load_parameters_ptr params,
                                    done_fn done) {
  // Marked whatever the load's outcome while a version of it serves (a
  // load that failed for one version, a failed reload), as Triton marks a
  // model named in a load before it loads it.
  load(name, std::move(params), [this, name, done](status st) {
    auto& record = records_[name];
    if (std::any_of(record.versions.begin(), record.versions.end(),
                    [](const auto& v) { return static_cast<bool>(v.second.scheduler); }))
      record.loaded_by_name = true;
    done(std::move(st));
  });
}

void model_repository::start_load(const std::string& name, const prepared_load& prepared,
                                  uint64_t started, done_fn done) {
  const auto& override_dir = prepared.override_dir;
  if (stopping_ || !prepared.error) {
    if (!override_dir.empty())
      repo::remove_override_directory(override_dir);
    if (stopping_)
      return done(runtime::unavailable("server is stopping"));
    // A name with no model behind it leaves nothing that the index lists or
    // that readiness waits for (Triton's "failed to poll" leaves no state).
    if (prepared.location.path.empty()) {
      const auto& why = prepared.error.message();
      constexpr std::string_view no_model = "failed to poll from model repository";
      CONCH_LOG_ERROR << why;
      // Triton's reason, which its tests look for in the log.
      if (why.size() >= no_model.size()
          && why.compare(why.size() - no_model.size(), no_model.size(), no_model) == 0)
        CONCH_LOG_ERROR << "failed to poll model '" << name
                        << "': model not found in any model repository.";
      return done(prepared.error);
    }
    return fail_load(name, prepared.error, done);
  }
  const auto& versions = prepared.versions;
  auto loaded = std::make_shared<std::map<int64_t, version_entry>>();
  if (auto st = start_versions(name, prepared, *loaded); !st)
    return fail_load(name, st, done);
  records_[name].fingerprint = prepared.fingerprint;
  auto pending = std::make_shared<size_t>(versions.size());
  auto failures = std::make_shared<std::map<int64_t, status>>();
  for (auto v : versions) {
    auto scheduler = (*loaded)[v].scheduler;
    request(scheduler, caf::infinite, init_atom_v)
      .then(
        [=](status& st) {
          if (!st)
            (*failures)[v] = st;
          if (--*pending == 0)
            finish_load(name, std::move(*loaded), std::move(*failures), started, override_dir,
                        done);
        },
        [=](caf::error& err) {
          (*failures)[v] = runtime::internal_error("model scheduler failed: " + to_string(err));
          if (--*pending == 0)
            finish_load(name, std::move(*loaded), std::move(*failures), started, override_dir,
                        done);
        });
  }
}

void model_repository::fail_load(const std::string& name, status why, done_fn done) {
  CONCH_LOG_ERROR << why.message();
  records_[name].last_error = why.message();
  // Readiness and the index see the failure before the load answers.
  publish([why = std::move(why), done] { done(why); });
}

status model_repository::start_versions(const std::string& name, const prepared_load& prepared,
                                        std::map<int64_t, version_entry>& started) {
  // All of them or none: a version that cannot even be started (its
  // scheduler threw while it was made) ends the ones started before it.
  try {
    auto shared_config = with_composing_policy(prepared.config);
    for (auto v : prepared.versions) {
      CONCH_LOG_INFO << "loading: " << name << ":" << v;
      auto entry = start_version(name, v, shared_config, prepared.location.path,
                                 prepared.location.repository, prepared.factory);
      entry.labels = prepared.labels;
      entry.reshapes = prepared.reshapes;
      started[v] = std::move(entry);
    }
    return status::ok();
  } catch (abi::__forced_unwind&) {
    throw;
  } catch (...) {
    const auto& serving = records_[name].versions;
    for (auto& [v, entry] : started) {
      if (entry.scheduler)
        send_exit(entry.scheduler, caf::exit_reason::user_shutdown);
      // A reload shares the statistics of the version that still serves.
      auto previous = serving.find(v);
      if (entry.stats && (previous == serving.end() || previous->second.stats != entry.stats))
        entry.stats->retire_metrics();
    }
    started.clear();
    if (!prepared.override_dir.empty()
        && prepared.override_dir != records_[name].override_dir)
      repo::remove_override_directory(prepared.override_dir);
    return runtime::internal_error("failed to load '" + name + "': "
                                   + exception_text(std::current_exception()));
  }
}

void model_repository::finish_load(const std::string& name,
                                   std::map<int64_t, version_entry> loaded,
                                   std::map<int64_t, status> failures, uint64_t started,
                                   fs::path override_dir, done_fn done) {
  auto& record = records_[name];
  auto& old = record.versions;
  bool any_new = failures.size() < loaded.size();
  record.last_error.clear();
  std::vector<scheduler_actor> retired;
  std::vector<std::shared_ptr<runtime::statistics::model_statistics>> failed_stats;
  auto seconds = static_cast<double>(runtime::now_ns() - started) / 1e9;
  std::string reasons;
  for (auto& [v, entry] : loaded) {
    auto previous = old.find(v);
    bool serving = previous != old.end() && previous->second.state == model_state::ready
                   && previous->second.scheduler;
    if (auto f = failures.find(v); f != failures.end()) {
      reasons += (reasons.empty() ? "" : "; ") + ("version " + std::to_string(v) + ": ")
                 + f->second.message();
      CONCH_LOG_ERROR << "failed to load '" << name << "' version " << v << ": "
                      << f->second.message();
      if (serving) {
        if (entry.stats)
          failed_stats.push_back(std::move(entry.stats));
        entry = previous->second; // a failed reload leaves the running version serving
        continue;
      }
      entry.state = model_state::unavailable;
      entry.reason = f->second.message();
      entry.scheduler = nullptr;
      if (entry.stats)
        failed_stats.push_back(std::move(entry.stats));
      entry.lane = nullptr;
      entry.readiness = nullptr;
      continue;
    }
    entry.state = model_state::ready;
    entry.reason.clear();
    entry.stats->record_load_duration(seconds);
    CONCH_LOG_INFO << "successfully loaded '" << name << "' version " << v;
    if (serving)
      retired.push_back(previous->second.scheduler);
  }
  // Versions of the previous load that this load did not bring back go away.
  for (auto& [v, entry] : old) {
    if (loaded.count(v) != 0)
      continue;
    if (entry.scheduler)
      retired.push_back(entry.scheduler);
    loaded[v] = version_entry{v, model_state::unavailable,
                              entry.scheduler ? "unloaded" : entry.reason, entry.config};
  }
  // The files of an override stay as long as a version loaded from them serves.
  if (any_new) {
    if (!record.override_dir.empty() && record.override_dir != override_dir)
      repo::remove_override_directory(record.override_dir);
    record.override_dir = override_dir;
  } else if (!override_dir.empty() && override_dir != record.override_dir) {
    repo::remove_override_directory(override_dir);
  }
  auto dropped = dropped_statistics(old, loaded, std::move(failed_stats));
  record.versions = std::move(loaded);
  publish([this, retired = std::move(retired), dropped = std::move(dropped), reasons, name,
           done]() mutable {
    drain(std::move(retired), [dropped = std::move(dropped), reasons, name, done] {
      // The versions this load replaced or failed have drained: their series
      // leave the exposition before the load answers.
      for (const auto& stats : dropped)
        stats->retire_metrics();
      if (reasons.empty())
        done(status::ok());
      else
        done(runtime::invalid_argument("failed to load '" + name + "', " + reasons));
    });
  });
}

} // namespace conch::actors
