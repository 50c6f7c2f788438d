#include "conch/actors/repository/model_repository.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "conch/actors/adapters/table_gateway.hpp"
#include "conch/runtime/device_memory.hpp"
#include "conch/runtime/logging/log.hpp"
#include "conch/runtime/repository/fingerprint.hpp"
#include "conch/runtime/repository/override_directory.hpp"
#include "conch/runtime/repository/scan.hpp"

namespace conch::actors {

namespace fs = std::filesystem;
using runtime::status;

model_repository::model_repository(caf::actor_config& cfg, server_options options,
                                   std::shared_ptr<runtime::statistics::metrics_registry> metrics,
                                   std::shared_ptr<server_flags> flags, adapter_pool_actor pool,
                                   bool allow_detached)
  : guarded(cfg, "the model repository"),
    options_(std::move(options)),
    metrics_(std::move(metrics)),
    flags_(std::move(flags)),
    gateway_(std::make_shared<table_gateway>(flags_, caf::weak_actor_ptr{ctrl()})),
    pool_(std::move(pool)),
    allow_detached_(allow_detached),
    table_(std::make_shared<model_table>()) {
  roots_ = runtime::repository::roots_of(
    std::vector<fs::path>(options_.model_repository.begin(), options_.model_repository.end()));
  if (options_.response_cache_byte_size > 0)
    cache_ = std::make_shared<runtime::response_cache>(
      static_cast<size_t>(options_.response_cache_byte_size));
  gpu_count_ = options_.gpu_count;
  if (gpu_count_ < 0) {
    auto memory = runtime::get_device_memory();
    gpu_count_ = memory ? memory->device_count() : 0;
  }
  std::random_device rd;
  override_base_ = fs::temp_directory_path() / ("conch-overrides-" + std::to_string(rd()));
  if (allow_detached_)
    scanner_ = std::make_unique<services::worker_thread>("the model repository's scans");
}

repository_actor::behavior_type model_repository::make_behavior() {
  set_down_handler([this](caf::down_msg& msg) { on_scheduler_down(msg); });
  return {
    [this](init_atom) { return initial_load(); },
    [this](load_atom, std::string& name, load_parameters_ptr& params) -> caf::result<status> {
      if (options_.model_control_mode != control_mode::explicit_)
        return runtime::unsupported("explicit model load / unload is not allowed if polling is "
                                    "enabled or the model control mode is not EXPLICIT");
      auto rp = make_response_promise();
      run_exclusive(
        name,
        [this, name, params](done_fn done) { load_by_name(name, params, std::move(done)); },
        [rp](status st) mutable { rp.deliver(std::move(st)); });
      return rp;
    },
    [this](unload_atom, std::string& name, bool dependents) -> caf::result<status> {
      if (options_.model_control_mode != control_mode::explicit_)
        return runtime::unsupported("explicit model load / unload is not allowed if polling is "
                                    "enabled or the model control mode is not EXPLICIT");
      auto rp = make_response_promise();
      run_exclusive(
        name,
        [this, name, dependents](done_fn done) { unload(name, dependents, std::move(done)); },
        [rp](status st) mutable { rp.deliver(std::move(st)); });
      return rp;
    },
    [this](register_atom, repository_root_ptr& root) -> status {
      if (!root)
        return runtime::invalid_argument("no repository to register");
      return register_root(*root);
    },
    [this](unregister_atom, std::string& path) { return unregister_root(path); },
    [this](poll_atom) { return poll(); },
    [this](timer_atom) {
      if (stopping_)
        return;
      poll();
      schedule_poll();
    },
    [this](index_atom, bool ready_only) { return index(ready_only); },
    [this](stop_atom) { return stop_all(); },
    // The server stopped taking requests: schedulers let go of what only
    // waits for one (sequences that wait for their next request).
    [this](quiesce_atom) {
      for (auto& s : schedulers_)
        send(s, quiesce_atom_v);
    },
    [this](abort_atom) { abort_all(); },
    [this](scan_atom, uint64_t id) {
      auto i = continuations_.find(id);
      if (i == continuations_.end())
        return;
      auto c = std::move(i->second);
      continuations_.erase(i);
      if (!*c.then) {
        if (c.dropped)
          c.dropped(); // the work threw
        return;
      }
      try {
        (*c.then)();
      } catch (...) {
        // Whoever waits for the continuation hears that it failed; the
        // exception goes on to be logged (guarded_actor).
        if (c.dropped)
          c.dropped();
        throw;
      }
    },
  };
}

void model_repository::off_thread(std::function<std::function<void()>()> work,
                                  std::function<void()> dropped) {
  if (!scanner_) {
    work()();
    return;
  }
  auto id = next_continuation_++;
  auto then = std::make_shared<std::function<void()>>();
  continuations_.emplace(id, continuation{then, std::move(dropped)});
  caf::actor_addr me = address();
  scanner_->post([work = std::move(work), then, me, id] {
    try {
      *then = work();
    } catch (abi::__forced_unwind&) {
      throw; // the interpreter ends this thread at exit
    } catch (...) {
      // Out of memory: the continuation stays empty and its caller hears so.
    }
    if (auto self = caf::actor_cast<repository_actor>(me))
      caf::anon_send(self, scan_atom_v, id);
  });
}

void model_repository::on_exit() {
  // CAF 0.17 does not break promises: answer every operation still open.
  exiting_ = true;
  // A scan that has not returned (a configuration hook that hangs) is given
  // up on; its continuation never runs, and whoever waits for it is told.
  auto unfinished = std::move(continuations_);
  continuations_.clear();
  for (auto& [id, c] : unfinished)
    if (c.dropped)
      c.dropped();
  scanner_.reset();
  auto pending = std::move(pending_);
  pending_.clear();
  for (auto& [id, done] : pending)
    done(runtime::unavailable("server is stopping"));
  if (stop_rp_.pending())
    stop_rp_.deliver(status::ok());
  // Schedulers are monitored, not linked (a link would carry a `kill` up the
  // tree): end the ones still alive here.
  for (auto& s : schedulers_)
    send_exit(s, caf::exit_reason::user_shutdown);
  schedulers_.clear();
  for (auto& [name, record] : records_)
    if (!record.override_dir.empty())
      runtime::repository::remove_override_directory(record.override_dir);
  std::error_code ec;
  fs::remove_all(override_base_, ec);
  records_.clear();
  table_.reset();
  pool_ = nullptr;
}

void model_repository::run_exclusive(const std::string& name, std::function<void(done_fn)> op,
                                     done_fn done) {
  auto id = next_operation_++;
  pending_.emplace(id, std::move(done));
  // Once only: an operation whose continuation threw may be failed after
  // a part of it answered already.
  auto finished = std::make_shared<bool>(false);
  done_fn finish = [this, name, id, finished](status st) {
    if (*finished)
      return;
    *finished = true;
    if (auto i = pending_.find(id); i != pending_.end()) {
      auto d = std::move(i->second);
      pending_.erase(i);
      d(std::move(st));
    }
    auto r = records_.find(name);
    if (r == records_.end())
      return;
    r->second.busy = false;
    if (!r->second.waiting.empty()) {
      auto next = std::move(r->second.waiting.front());
      r->second.waiting.pop_front();
      next();
      return;
    }
    // A name that never loaded leaves nothing behind.
    if (r->second.versions.empty() && r->second.override_dir.empty()
        && r->second.last_error.empty())
      records_.erase(r);
    maybe_stop();
  };
  auto start = [this, name, op, finish]() {
    records_[name].busy = true;
    try {
      op(finish);
    } catch (abi::__forced_unwind&) {
      throw;
    } catch (...) {
      auto what = exception_text(std::current_exception());
      CONCH_LOG_ERROR << "an operation on '" << name << "' failed: " << what;
      finish(runtime::internal_error("'" + name + "': " + what));
    }
  };
  auto& record = records_[name];
  record.name = name;
  if (record.busy)
    record.waiting.push_back(std::move(start));
  else
    start();
}

void model_repository::schedule_poll() {
  if (options_.repository_poll_secs == 0)
    return;
  delayed_send(caf::actor_cast<repository_actor>(this),
               std::chrono::seconds{options_.repository_poll_secs}, timer_atom_v);
}

caf::result<status> model_repository::stop_all() {
  if (stopping_ && stop_rp_.pending())
    return runtime::already_exists("the repository is already stopping");
  stopping_ = true;
  stop_rp_ = make_response_promise();
  maybe_stop();
  return stop_rp_;
}

void model_repository::maybe_stop() {
  if (!stopping_ || stop_draining_ || !stop_rp_.pending())
    return;
  // Operations under way finish first; the ones waiting behind them see
  // stopping_ and refuse to load.
  for (const auto& [name, record] : records_)
    if (record.busy)
      return;
  stop_draining_ = true;
  for (auto& [name, record] : records_)
    for (auto& [v, entry] : record.versions)
      if (entry.scheduler)
        entry.state = model_state::unloading;
  drain_in_stages(drain_stages(), 0, [this] {
    for (auto& [name, record] : records_)
      record.versions.clear();
    if (stop_rp_.pending())
      stop_rp_.deliver(status::ok());
  });
}

void model_repository::abort_all() {
  // Each scheduler answers whether model code still ran: such a version is
  // stuck, its requests are answered and its busy instances abandoned, and
  // it never becomes ready again.
  for (auto& s : schedulers_)
    request(s, caf::infinite, abort_atom_v)
      .then(
        [this, source = s.address()](bool stuck) {
          if (stuck)
            mark_stuck(source);
        },
        [](caf::error&) {});
}

void model_repository::mark_stuck(const caf::actor_addr& scheduler) {
  for (auto& [name, record] : records_)
    for (auto& [v, entry] : record.versions) {
      if (!entry.scheduler || entry.scheduler.address() != scheduler)
        continue;
      CONCH_LOG_ERROR << "'" << name << "' version " << v
                      << " did not finish before the exit timeout: its requests are answered "
                         "and its busy instances abandoned";
      entry.state = model_state::unavailable;
      entry.reason = "exit timeout expired while the version was still running";
      publish([] {});
      return;
    }
}

void model_repository::on_scheduler_down(const caf::down_msg& msg) {
  schedulers_.erase(std::remove_if(schedulers_.begin(), schedulers_.end(),
                                   [&](const auto& s) { return s.address() == msg.source; }),
                    schedulers_.end());
  scheduler_configs_.erase(msg.source);
  for (auto& [name, record] : records_)
    for (auto& [v, entry] : record.versions) {
      if (!entry.scheduler || entry.scheduler.address() != msg.source)
        continue;
      entry.scheduler = nullptr;
      if (entry.state == model_state::ready) {
        entry.state = model_state::unavailable;
        entry.reason = msg.reason ? to_string(msg.reason) : "model stopped";
        publish([] {});
      }
      return;
    }
}

model_table_ptr model_repository::snapshot() const {
  auto table = std::make_shared<model_table>();
  bool all_ready = true;
  for (const auto& [name, record] : records_) {
    if (record.versions.empty()) {
      if (!record.last_error.empty())
        all_ready = false;
      continue;
    }
    model_entry m;
    m.name = name;
    for (const auto& [v, entry] : record.versions)
      m.versions.push_back(entry);
    table->models.emplace(name, std::move(m));
  }
  mark_broken_ensembles(*table);
  for (const auto& [name, m] : table->models) {
    bool any_ready = std::any_of(m.versions.begin(), m.versions.end(),
                                 [](const auto& e) { return e.state == model_state::ready; });
    if (!any_ready && m.versions.front().reason != "unloaded")
      all_ready = false;
  }
  flags_->models_ready.store(all_ready || !options_.strict_readiness);
  flags_->publish(table);
  return table;
}

void model_repository::publish(std::function<void()> then) {
  table_ = snapshot();
  request(pool_, caf::infinite, table_atom_v, table_)
    .then([then](caf::ok_atom) { then(); }, [then](caf::error&) { then(); });
}

} // namespace conch::actors
