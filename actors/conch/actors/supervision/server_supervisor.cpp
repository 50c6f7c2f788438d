#include "conch/actors/supervision/server_supervisor.hpp"

#include <algorithm>
#include <chrono>

#include "conch/actors/adapters/adapter_pool.hpp"
#include "conch/actors/supervision/frontend_supervisor.hpp"
#include "conch/actors/repository/model_repository.hpp"
#include "conch/runtime/logging/log.hpp"

namespace conch::actors {

using runtime::status;

namespace {

// After the exit timeout the tree is told to abandon its work; this is how
// long it then gets to release everything before it is killed outright.
constexpr auto abandon_grace = std::chrono::seconds{1};

} // namespace

server_supervisor::server_supervisor(caf::actor_config& cfg, supervisor_spec spec)
  : guarded(cfg, "the server supervisor"), spec_(std::move(spec)) {}

supervisor_actor::behavior_type server_supervisor::make_behavior() {
  pool_ = spawn<adapter_pool, caf::monitored>(spec_.slots, size_t{spec_.options.restart_budget});
  repository_ = spawn<model_repository, caf::monitored>(spec_.options, spec_.metrics, spec_.flags,
                                                        pool_, spec_.allow_detached);
  set_down_handler([this](caf::down_msg& msg) { on_down(msg); });
  // Linked from the application's own tree and told to exit: run the stop
  // protocol rather than leave the children behind.
  set_exit_handler([this](caf::exit_msg& msg) {
    if (msg.reason == caf::exit_reason::kill || phase_ == phase::done) {
      quit(msg.reason);
      return;
    }
    if (phase_ == phase::running)
      (void) begin_stop();
  });
  return {
    [this](init_atom a) { return delegate(repository_, a); },
    [this](frontend_atom, frontend_transport_ptr& t) { return add_frontend(std::move(t), nullptr); },
    [this](frontend_atom, frontend_transport_ptr& t, frontend_restart_ptr& restart) {
      return add_frontend(std::move(t), std::move(restart));
    },
    [this](stop_atom) { return begin_stop(); },
    [this](timer_atom) { on_deadline(); },
    [this](caf::get_atom) -> caf::result<repository_actor, adapter_pool_actor> {
      return {repository_, pool_};
    },
  };
}

void server_supervisor::on_exit() {
  auto unexpected = runtime::internal_error("server stopped unexpectedly");
  spec_.flags->set_stop_outcome(unexpected);
  for (auto& rp : stop_rps_)
    if (rp.pending())
      rp.deliver(unexpected);
  stop_rps_.clear();
  // Nothing is admitted from here on, then whatever is still alive must not
  // outlive its supervisor.
  spec_.flags->accepting.store(false);
  spec_.flags->frontends_open.store(false);
  spec_.flags->live.store(false);
  kill_children();
  frontends_.clear();
  pool_ = nullptr;
  repository_ = nullptr;
}

caf::result<status, frontend_actor> server_supervisor::add_frontend(frontend_transport_ptr transport,
                                                                frontend_restart_ptr restart) {
  if (phase_ != phase::running)
    return {runtime::unavailable("Server is stopping"), frontend_actor{}};
  frontend_actor fe;
  if (spec_.allow_detached)
    fe = spawn<frontend_supervisor, caf::monitored + caf::detached>(std::move(transport),
                                                                    std::move(restart));
  else
    fe = spawn<frontend_supervisor, caf::monitored>(std::move(transport), std::move(restart));
  frontends_.push_back(fe);
  auto rp = make_response_promise<status, frontend_actor>();
  request(fe, caf::infinite, start_atom_v)
    .then(
      [this, rp, fe](status& st) mutable {
        if (!st)
          send_exit(fe, caf::exit_reason::user_shutdown);
        rp.deliver(std::move(st), fe);
      },
      [rp](caf::error& err) mutable {
        rp.deliver(runtime::internal_error("frontend failed to start: " + to_string(err)),
                   frontend_actor{});
      });
  return rp;
}

caf::result<status> server_supervisor::begin_stop() {
  // Every stop that races with the first waits for it and hears its outcome.
  auto rp = make_response_promise();
  stop_rps_.push_back(rp);
  if (phase_ != phase::running)
    return rp;
  spec_.flags->accepting.store(false);
  spec_.flags->models_ready.store(false);
  if (repository_)
    send(repository_, quiesce_atom_v);
  delayed_send(caf::actor_cast<supervisor_actor>(this), std::chrono::seconds{spec_.options.exit_timeout},
               timer_atom_v);
  stop_frontends();
  return rp;
}

void server_supervisor::stop_frontends() {
  phase_ = phase::frontends;
  pending_ = frontends_.size();
  if (pending_ == 0)
    return stop_adapters();
  for (auto& fe : frontends_) {
    request(fe, caf::infinite, stop_atom_v)
      .then([](status&) {}, [](caf::error&) {});
  }
  // Progress is counted on the frontends' down messages, which arrive
  // whether they stop cleanly or die.
}

void server_supervisor::stop_adapters() {
  phase_ = phase::adapters;
  // The frontends have drained (or were aborted): nothing they received
  // is admitted any more.
  spec_.flags->frontends_open.store(false);
  if (!pool_)
    return stop_models(); // it ended earlier: nothing to wait for
  send_exit(pool_, caf::exit_reason::user_shutdown);
}

void server_supervisor::stop_models() {
  phase_ = phase::models;
  if (!repository_)
    return finish();
  request(repository_, caf::infinite, stop_atom_v)
    .then([this](status&) { send_exit(repository_, caf::exit_reason::user_shutdown); },
          [this](caf::error&) { send_exit(repository_, caf::exit_reason::user_shutdown); });
}

void server_supervisor::finish() {
  phase_ = phase::done;
  spec_.flags->live.store(false);
  auto outcome = timed_out_ ? runtime::internal_error("Exit timeout expired. Exiting immediately.")
                            : status::ok();
  spec_.flags->set_stop_outcome(outcome);
  for (auto& rp : stop_rps_)
    if (rp.pending())
      rp.deliver(outcome);
  stop_rps_.clear();
  quit();
}

void server_supervisor::on_deadline() {
  if (phase_ == phase::done || phase_ == phase::running)
    return;
  if (!timed_out_) {
    // Abandon the work that is left: cancel running requests and force every
    // transport closed, then give the tree a moment to release it all.
    timed_out_ = true;
    // The models are being cancelled: a request a frontend still hands in
    // now could reach a scheduler that has ended.
    spec_.flags->frontends_open.store(false);
    for (auto& fe : frontends_)
      send(fe, abort_atom_v);
    if (repository_)
      send(repository_, abort_atom_v);
    delayed_send(caf::actor_cast<supervisor_actor>(this), abandon_grace, timer_atom_v);
    return;
  }
  kill_children();
  finish();
}

void server_supervisor::kill_children() {
  for (auto& fe : frontends_)
    send_exit(fe, caf::exit_reason::kill);
  if (pool_)
    send_exit(pool_, caf::exit_reason::kill);
  if (repository_)
    send_exit(repository_, caf::exit_reason::kill);
}

void server_supervisor::core_failed(const char* which, const caf::error& reason) {
  // Restarting the part alone would not bring back what it held (the
  // loaded models, the routes to them): the server is not healthy again
  // until it restarts.
  CONCH_LOG_ERROR << which << " ended while the server was running ("
                  << (reason ? to_string(reason) : std::string{"no reason"})
                  << "): the server now reports itself not live and not ready";
  spec_.flags->accepting.store(false);
  spec_.flags->frontends_open.store(false);
  spec_.flags->models_ready.store(false);
  spec_.flags->live.store(false);
}

void server_supervisor::on_down(const caf::down_msg& msg) {
  if (pool_ && msg.source == pool_.address()) {
    pool_ = nullptr;
    if (phase_ == phase::adapters)
      return stop_models();
    if (phase_ == phase::running)
      core_failed("the adapter pool", msg.reason);
    return;
  }
  if (repository_ && msg.source == repository_.address()) {
    repository_ = nullptr;
    if (phase_ == phase::models)
      return finish();
    if (phase_ == phase::running)
      core_failed("the model repository", msg.reason);
    return;
  }
  auto i = std::find_if(frontends_.begin(), frontends_.end(),
                        [&](const frontend_actor& a) { return a.address() == msg.source; });
  if (i == frontends_.end())
    return;
  frontends_.erase(i);
  if (phase_ == phase::frontends && --pending_ == 0)
    stop_adapters();
}

} // namespace conch::actors
