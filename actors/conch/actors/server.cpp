#include "conch/actors/server.hpp"

#include <optional>

#include <caf/scoped_actor.hpp>

#include "conch/actors/server/device_memory_setup.hpp"
#include "conch/actors/messages.hpp"
#include "conch/actors/server/server_core.hpp"
#include "conch/actors/supervision/server_supervisor.hpp"
#include "conch/actors/server/system_metrics.hpp"
#include "conch/runtime/logging/log.hpp"

#ifndef CONCH_VERSION
#define CONCH_VERSION "0.0.0"
#endif

namespace conch::actors {

using runtime::status;

namespace {

status from_error(const caf::error& err) {
  return runtime::unavailable("server is not running: " + to_string(err));
}

status start_failure(const std::vector<std::string>& failures) {
  if (failures.size() == 1)
    return runtime::internal_error(failures.front());
  std::string m = "failed to load all models:";
  for (const auto& f : failures)
    m += " " + f + ";";
  m.pop_back();
  return runtime::internal_error(std::move(m));
}

} // namespace

runtime::result<server> server::start(caf::actor_system& sys, server_options options) {
  if (options.model_repository.empty())
    return runtime::invalid_argument("--model-repository must be specified");
  if (options.metrics_interval_ms == 0)
    return runtime::invalid_argument("metrics interval must be greater than 0");
  if (options.max_inflight < 0)
    return runtime::invalid_argument("max_inflight must not be negative");
  auto settings = runtime::statistics::parse_metrics_configuration(options.metrics_configuration);
  if (!settings)
    return settings.error();
  CONCH_RUNTIME_RETURN_IF_ERROR(runtime::tracing::validate(options.trace));
  caller_thread_guard guard;
  CONCH_LOG_INFO << "starting server '" << options.server_id << "' over "
                 << options.model_repository.size() << " model repositor"
                 << (options.model_repository.size() == 1 ? "y" : "ies");
  // Before the core: its shared-memory registry keeps the provider it sees.
  install_device_memory();
  auto pools = install_memory_pools(options);
  auto c = std::make_shared<core>();
  c->memory_pools = std::move(pools);
  c->sys = &sys;
  c->options = options;
  c->metrics = std::make_shared<runtime::statistics::metrics_registry>(std::move(*settings));
  c->traces = std::make_shared<services::tracer>(options.trace);
  c->slots = std::make_shared<adapter_slots>(options.adapter_count, options.restart_budget);
  c->inprocess->set_max_inflight(options.max_inflight);
  c->inprocess_metrics = std::make_shared<runtime::statistics::connection_metrics>(
    "in-process", c->inprocess->stats(), nullptr, false);
  c->metrics->add_source(c->inprocess_metrics);
  c->flags->live.store(true);
  c->gauge_sampler = start_system_metrics(sys, options, *c->metrics->registry());
  c->supervisor = sys.spawn<server_supervisor>(
    supervisor_spec{options, c->flags, c->metrics, c->slots, true});
  caf::scoped_actor self{sys};
  std::vector<std::string> failures;
  status st;
  self->request(c->supervisor, caf::infinite, init_atom_v)
    .receive([&](std::vector<std::string>& f) { failures = std::move(f); },
             [&](caf::error& err) { st = from_error(err); });
  self->request(c->supervisor, caf::infinite, caf::get_atom_v)
    .receive([&](repository_actor& repository, adapter_pool_actor&) { c->repository = repository; },
             [&](caf::error& err) { st = from_error(err); });
  self->request(c->supervisor, caf::infinite, frontend_atom_v,
                frontend_transport_ptr{c->inprocess})
    .receive([&](status& s, frontend_actor&) { st = st ? s : st; },
             [&](caf::error& err) { st = from_error(err); });
  if (st && !failures.empty() && options.exit_on_error)
    st = start_failure(failures);
  if (!st) {
    CONCH_LOG_ERROR << "server failed to start: " << st.message();
    (void) c->stop();
    return st;
  }
  c->flags->accepting.store(true);
  c->flags->frontends_open.store(true);
  CONCH_LOG_INFO << "server '" << options.server_id << "' started";
  return server{std::move(c)};
}

status server::core::stop() {
  // No lock is held while the stop runs: the supervisor owns the protocol,
  // answers every stop that races with the one it runs, and records the
  // outcome for a stop that comes after it ended.
  bool first = !stop_begun.exchange(true);
  flags->accepting.store(false);
  caller_thread_guard thread_guard;
  if (first)
    CONCH_LOG_INFO << "stopping server: waiting for in-flight requests to complete";
  caf::scoped_actor self{*sys};
  std::optional<status> result;
  self->request(supervisor, caf::infinite, stop_atom_v)
    .receive([&](status& st) { result = std::move(st); }, [&](caf::error&) {});
  self->wait_for(supervisor);
  if (gauge_sampler) {
    self->send_exit(gauge_sampler, caf::exit_reason::user_shutdown);
    self->wait_for(gauge_sampler);
  }
  flags->live.store(false);
  // Every request has been answered: the traces that are still to be
  // written are in the queues (or held by a client's late response).
  traces->close();
  if (!result)
    result = flags->stop_outcome();
  if (!result)
    result = runtime::internal_error("the server had already ended");
  if (first) {
    if (*result)
      CONCH_LOG_INFO << "server stopped";
    else
      CONCH_LOG_ERROR << "server stopped: " << result->message();
  }
  return *result;
}

server::core::~core() {
  if (!stop_begun.load() && sys != nullptr && supervisor)
    (void) stop();
}

runtime::result<model_table_ptr> server::core::table() const {
  // The repository publishes every change before it answers the request that
  // caused it, so this snapshot is never older than a completed load.
  if (!flags->live.load())
    return runtime::unavailable("server is not running");
  return flags->table();
}

status server::stop() { return core_->stop(); }

supervisor_actor server::handle() const { return core_->supervisor; }

bool server::live() const { return core_->flags->live.load(); }

bool server::ready() const {
  // Never ready over a core that failed (server_supervisor::core_failed).
  const auto& flags = *core_->flags;
  return flags.live.load() && flags.accepting.load() && flags.models_ready.load();
}

const server_options& server::options() const { return core_->options; }

server_metadata server::metadata() const {
  return {core_->options.server_id,
          CONCH_VERSION,
          {"model_repository", "model_repository(unload_dependents)", "schedule_policy",
           "model_configuration", "statistics", "parameters"}};
}

std::string server::metrics_text() const { return core_->metrics->serialize(); }

void server::add_metric_source(std::weak_ptr<const prometheus::Collectable> source) const {
  core_->metrics->add_source(std::move(source));
}

runtime::result<std::shared_ptr<runtime::statistics::custom_metric_family>>
server::make_metric_family(runtime::statistics::metric_kind kind, const std::string& name,
                           const std::string& description) const {
  return runtime::statistics::custom_metric_family::make(core_->metrics->registry(), kind, name,
                                                         description);
}

} // namespace conch::actors
