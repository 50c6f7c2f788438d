#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/response_promise.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "conch/actors/adapters/adapter_pool.hpp"
#include "conch/actors/supervision/guarded_actor.hpp"
#include "conch/actors/messages.hpp"
#include "conch/actors/repository/repository_interface.hpp"
#include "conch/actors/repository/repository_messages.hpp"
#include "conch/actors/repository/repository_prepare.hpp"
#include "conch/services/worker_thread.hpp"
#include "conch/actors/server/server_flags.hpp"
#include "conch/actors/server_options.hpp"
#include "conch/runtime/backends/registry.hpp"
#include "conch/runtime/response_cache.hpp"
#include "conch/runtime/repository/repository_root.hpp"
#include "conch/runtime/statistics/metrics_registry.hpp"

namespace conch::actors {

/// Owns the model repository: loads, reloads and unloads model versions
/// (one scheduler actor each), follows the control mode (NONE, POLL with an
/// interval, EXPLICIT), answers the index, and publishes every change of
/// the model table to the adapter pool before it answers the request that
/// caused it. Operations on one model run one at a time, in arrival order.
/// It owns the list of repositories it reads, which starts as the options'
/// model_repository and changes by registration (EXPLICIT mode only).
/// An exception a handler throws fails the operation or request it served;
/// the repository goes on (guarded). Its interface is repository_actor.
class model_repository : public guarded<repository_actor::base> {
 public:
  model_repository(caf::actor_config& cfg, server_options options,
                   std::shared_ptr<runtime::statistics::metrics_registry> metrics,
                   std::shared_ptr<server_flags> flags, adapter_pool_actor pool,
                   bool allow_detached);

  behavior_type make_behavior() override;
  void on_exit() override;

 private:
  struct model_record {
    std::string name;
    std::map<int64_t, version_entry> versions;
    uint64_t fingerprint = 0;
    /// Why the last load failed before any version started (bad config,
    /// unknown backend, no version); shown by the index as UNAVAILABLE.
    std::string last_error;
    std::filesystem::path override_dir;
    bool busy = false;
    std::deque<std::function<void()>> waiting;
    /// Loaded by name (a load request, the startup list, a poll, every
    /// model in NONE mode), not only as a model an ensemble's steps run:
    /// an unload with unload_dependents leaves it loaded (Triton's rule).
    bool loaded_by_name = false;
  };
  using done_fn = std::function<void(runtime::status)>;

  // -- operations (repository_load.cpp / repository_unload.cpp) ----------------
  void run_exclusive(const std::string& name, std::function<void(done_fn)> op, done_fn done);
  void load(const std::string& name, load_parameters_ptr params, done_fn done);
  /// load(), for a model asked for by name; marks it loaded_by_name.
  void load_by_name(const std::string& name, load_parameters_ptr params, done_fn done);
  void start_load(const std::string& name, const prepared_load& prepared, uint64_t started,
                  done_fn done);
  /// Answers a load of an existing model that failed before any version
  /// started: records why (the index shows it, readiness counts it),
  /// publishes, then calls `done` with `why`.
  void fail_load(const std::string& name, runtime::status why, done_fn done);
  /// Spawns a scheduler for each of the prepared versions into `started`;
  /// when one cannot be made, ends those made before it and fails.
  runtime::status start_versions(const std::string& name, const prepared_load& prepared,
                                 std::map<int64_t, version_entry>& started);
  void finish_load(const std::string& name, std::map<int64_t, version_entry> loaded,
                   std::map<int64_t, runtime::status> failures, uint64_t started,
                   std::filesystem::path override_dir, done_fn done);
  /// Unloads every version of `name`; with `dependents`, then the models
  /// its ensemble steps ran that unload_dependents() lets go.
  void unload(const std::string& name, bool dependents, done_fn done);
  void drain(std::vector<scheduler_actor> schedulers, std::function<void()> then);
  void maybe_stop();
  version_entry start_version(const std::string& name, int64_t version,
                              std::shared_ptr<const inference::ModelConfig> config,
                              const std::filesystem::path& model_path,
                              const std::filesystem::path& repository,
                              const runtime::backends::model_factory& factory);

  // -- ensembles (repository_ensembles.cpp) ---------------------------------------
  /// Loads the models an ensemble's steps run that are not loaded yet, one
  /// operation on each as a load of it would be, then calls `then` (also
  /// when some failed: the ensemble's load reports them). An ensemble that
  /// would wait, directly or through others, for itself fails instead
  /// ("circular dependency between ensembles").
  void load_composing(const std::string& name, const inference::ModelConfig& config,
                      done_fn then);
  /// An ensemble's configuration, made decoupled when one of the models its
  /// steps run is, as Triton does.
  std::shared_ptr<const inference::ModelConfig>
  with_composing_policy(std::shared_ptr<const inference::ModelConfig> config) const;
  /// The schedulers in the order a stop drains them: ensembles before the
  /// models they call (outermost first), every other scheduler last.
  std::vector<std::vector<scheduler_actor>> drain_stages() const;
  void drain_in_stages(std::vector<std::vector<scheduler_actor>> stages, size_t next,
                       std::function<void()> then);
  /// After an ensemble unloaded with unload_dependents: unloads those of
  /// `models` (its composing models) that were not loaded by name and that
  /// no other ensemble, loaded or loading, still runs, each with its own
  /// dependents; then `done`.
  void unload_dependents(std::vector<std::string> models, done_fn done);
  /// Whether an ensemble that is loaded (and not being unloaded) or being
  /// loaded runs `model` in a step.
  bool composed_by_an_ensemble(const std::string& model) const;

  // -- repository roots (repository_roots.cpp) -----------------------------------
  runtime::status register_root(const runtime::repository::repository_root& root);
  runtime::status unregister_root(const std::string& path);

  // -- work off the actor system's threads (model_repository.cpp) ---------------
  /// Runs `work` on the repository's worker thread (at once, in deterministic
  /// tests), then on this actor the continuation `work` returned. Reading
  /// the disk and completing configurations (Python) block. `dropped` runs
  /// instead when the continuation never will: the work threw, or this
  /// actor ends first.
  void off_thread(std::function<std::function<void()>()> work,
                  std::function<void()> dropped = {});

  // -- walking the roots (repository_scans.cpp) ---------------------------------
  caf::result<std::vector<std::string>> initial_load();
  void load_initial(const runtime::repository::scan_result& scanned, caf::response_promise rp);
  caf::result<runtime::status> poll();
  void poll_found(const std::map<std::string, uint64_t>& found, caf::response_promise rp);
  caf::result<index_ptr> index(bool ready_only);
  index_ptr index_of(const std::vector<std::string>& found, bool ready_only) const;

  // -- control --------------------------------------------------------------------
  caf::result<runtime::status> stop_all();
  void abort_all();
  void mark_stuck(const caf::actor_addr& scheduler);
  void on_scheduler_down(const caf::down_msg& msg);
  void publish(std::function<void()> then);
  model_table_ptr snapshot() const;
  void schedule_poll();

  server_options options_;
  /// The repositories read by scans and loads, in registration order.
  std::vector<runtime::repository::repository_root> roots_;
  std::shared_ptr<runtime::statistics::metrics_registry> metrics_;
  std::shared_ptr<server_flags> flags_;
  /// The response cache; null when the server has none.
  std::shared_ptr<runtime::response_cache> cache_;
  /// How ensembles reach the other models (through the published table).
  std::shared_ptr<runtime::backends::model_gateway> gateway_;
  /// By ensemble being loaded: the models its steps run, from
  /// load_composing until its load answers.
  std::map<std::string, std::vector<std::string>> waiting_on_;
  adapter_pool_actor pool_;
  bool allow_detached_;
  int gpu_count_ = 0;
  std::map<std::string, model_record> records_;
  model_table_ptr table_;
  std::filesystem::path override_base_;
  /// The callbacks of operations not yet answered, failed when this ends.
  std::map<uint64_t, done_fn> pending_;
  uint64_t next_operation_ = 0;
  /// Every scheduler alive, loading and retiring ones included.
  std::vector<scheduler_actor> schedulers_;
  /// The configuration each of them serves, until it is down.
  std::map<caf::actor_addr, std::shared_ptr<const inference::ModelConfig>> scheduler_configs_;
  /// Where off_thread work runs; null in deterministic tests.
  std::unique_ptr<services::worker_thread> scanner_;
  struct continuation {
    std::shared_ptr<std::function<void()>> then;
    std::function<void()> dropped;
  };
  std::map<uint64_t, continuation> continuations_;
  uint64_t next_continuation_ = 0;
  caf::response_promise stop_rp_;
  bool stopping_ = false;
  bool stop_draining_ = false;
  bool exiting_ = false;
};

} // namespace conch::actors
