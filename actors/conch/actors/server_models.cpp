// The model, repository, inference and frontend methods of conch::server.

#include <algorithm>
#include <chrono>
#include <functional>
#include <variant>

#include <caf/scoped_actor.hpp>

#include "conch/actors/adapters/front_door.hpp"
#include "conch/actors/messages.hpp"
#include "conch/actors/server/server_core.hpp"

namespace conch::actors {

using runtime::status;

namespace {

status not_running(const caf::error& err) {
  return runtime::unavailable("server is not running: " + to_string(err));
}

} // namespace

bool server::model_ready(const std::string& name, int64_t version) const {
  auto t = core_->table();
  return t && (*t)->resolve(name, version).has_value();
}

bool server::model_known(const std::string& name, int64_t version) const {
  auto t = core_->table();
  if (!t)
    return false;
  auto i = (*t)->models.find(name);
  if (i == (*t)->models.end() || i->second.versions.empty())
    return false;
  return version < 0 || (*t)->find(name, version) != nullptr;
}

void server::check_model_ready(const std::string& name, int64_t version,
                               std::function<void(bool)> done) const {
  auto t = core_->table();
  if (!t)
    return done(false);
  auto entry = (*t)->resolve(name, version);
  if (!entry)
    return done(false);
  if (!(*entry)->readiness)
    return done(true);
  // The table snapshot may go before the answer comes: the probes are shared.
  (*entry)->readiness->check(std::move(done));
}

runtime::result<runtime::model_metadata> server::model_metadata(const std::string& name,
                                                                      int64_t version) const {
  auto t = core_->table();
  if (!t)
    return t.error();
  auto entry = (*t)->resolve(name, version);
  if (!entry)
    return entry.error();
  // As Triton: the requested version, or every READY one.
  std::vector<int64_t> versions;
  if (version >= 0)
    versions.push_back(version);
  else
    for (const auto& v : (*t)->models.at(name).versions)
      if (v.state == model_state::ready)
        versions.push_back(v.version);
  return runtime::make_model_metadata(*(*entry)->config, versions);
}

runtime::result<std::shared_ptr<const inference::ModelConfig>>
server::model_config(const std::string& name, int64_t version) const {
  auto resolved = resolve(name, version);
  if (!resolved)
    return resolved.error();
  // The config outlives the table snapshot: it is shared, not copied.
  return (*resolved)->config;
}

runtime::result<runtime::resolved_model_ptr> server::resolve(const std::string& name,
                                                             int64_t version) const {
  auto t = core_->table();
  if (!t)
    return t.error();
  auto entry = (*t)->resolve(name, version);
  if (!entry)
    return entry.error();
  // Shares the snapshot's ownership: the entry lives as long as the table.
  return runtime::resolved_model_ptr{*t, *entry};
}

runtime::result<std::vector<runtime::statistics::statistics_snapshot>>
server::model_statistics(const std::string& name, int64_t version) const {
  auto t = core_->table();
  if (!t)
    return t.error();
  std::vector<runtime::statistics::statistics_snapshot> out;
  for (const auto& [model, entry] : (*t)->models) {
    if (!name.empty() && model != name)
      continue;
    for (const auto& v : entry.versions)
      if (v.state == model_state::ready && v.stats && (version < 0 || v.version == version))
        out.push_back(v.stats->snapshot());
  }
  if (!name.empty() && out.empty())
    return runtime::invalid_argument("requested model '" + name + "' is not available");
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.name != b.name ? a.name < b.name : a.version < b.version;
  });
  return out;
}

runtime::result<std::vector<index_entry>> server::repository_index(bool ready_only) const {
  caller_thread_guard guard;
  caf::scoped_actor self{*core_->sys};
  runtime::result<std::vector<index_entry>> out{runtime::unavailable("server is not running")};
  self->request(core_->repository, caf::infinite, index_atom_v, ready_only)
    .receive([&](index_ptr& index) { out = *index; },
             [&](caf::error& err) { out = not_running(err); });
  return out;
}

status server::load(const std::string& name, load_parameters parameters) {
  auto params = std::make_shared<const load_parameters>(std::move(parameters));
  return ask_status(*core_->sys, core_->repository, load_atom_v, name, params);
}

status server::unload(const std::string& name, bool unload_dependents) {
  return ask_status(*core_->sys, core_->repository, unload_atom_v, name, unload_dependents);
}

status server::poll_repository() {
  return ask_status(*core_->sys, core_->repository, poll_atom_v);
}

request_handle server::submit(runtime::inference_request request,
                              runtime::response_callback on_response,
                              runtime::submit_policy policy) {
  if (!request.trace && runtime::tracing_active())
    open_trace(request, policy.trace);
  auto job = std::make_shared<runtime::inference_job>(std::move(request), std::move(on_response));
  // A network frontend stamps its sending on the trace the final response
  // brings; an in-process caller may keep its responses, and with them the
  // trace, long after the request ended.
  if (job->request().trace && policy.trace.by != runtime::arrival::inprocess)
    job->hand_trace_back();
  const auto& c = *core_;
  front_door{*c.flags, c.slots.get(), c.inprocess.get(), c.options.direct_lane}.enter(job, policy);
  return request_handle{std::move(job)};
}

runtime::result<frontend_actor> server::add_frontend(frontend_transport_ptr transport,
                                                     frontend_restart_ptr restart) {
  caller_thread_guard guard;
  caf::scoped_actor self{*core_->sys};
  runtime::result<frontend_actor> out{runtime::unavailable("server is not running")};
  self->request(core_->supervisor, caf::infinite, frontend_atom_v, std::move(transport),
                std::move(restart))
    .receive(
      [&](status& st, frontend_actor& fe) {
        if (st)
          out = std::move(fe);
        else
          out = std::move(st);
      },
      [&](caf::error& err) { out = not_running(err); });
  return out;
}

status server::stop_frontend(const frontend_actor& frontend) {
  if (!frontend)
    return status::ok();
  caller_thread_guard guard;
  caf::scoped_actor self{*core_->sys};
  status out;
  self->request(frontend, std::chrono::seconds{core_->options.exit_timeout}, stop_atom_v)
    .receive([&](status& st) { out = std::move(st); },
             [&](caf::error& err) {
               if (err == caf::sec::request_timeout) {
                 // Past the deadline: the supervisor closes its transport as it ends.
                 caf::anon_send_exit(frontend, caf::exit_reason::kill);
                 out = runtime::internal_error("Exit timeout expired. Exiting immediately.");
               }
             });
  self->wait_for(frontend);
  return out;
}

} // namespace conch::actors
