#include "conch/actors/frontends/server_gateway.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "conch/runtime/logging/logger.hpp"

namespace conch::actors {

std::vector<std::string> http_extensions(const std::vector<std::string>& server_extensions) {
  // The protocol's order (spec §1.3); only what is implemented is listed.
  static constexpr std::array<std::string_view, 14> order{
    "classification",     "sequence",           "model_repository",
    "model_repository(unload_dependents)",      "schedule_policy",
    "model_configuration", "system_shared_memory", "cuda_shared_memory",
    "binary_tensor_data", "parameters",         "statistics",
    "trace",              "logging",            "sequence(string_id)"};
  auto have = server_extensions;
  for (std::string_view own :
       {"classification", "system_shared_memory", "binary_tensor_data", "logging"})
    if (std::find(have.begin(), have.end(), own) == have.end())
      have.emplace_back(own);
  std::vector<std::string> out;
  for (auto name : order)
    if (std::find(have.begin(), have.end(), name) != have.end())
      out.emplace_back(name);
  for (const auto& e : have)
    if (std::find(order.begin(), order.end(), e) == order.end())
      out.push_back(e);
  return out;
}

bool server_gateway::live() const { return srv_.live(); }

bool server_gateway::ready() const { return srv_.ready(); }

runtime::server_metadata server_gateway::server_metadata() const {
  auto m = srv_.metadata();
  m.extensions = http_extensions(m.extensions);
  return m;
}

void server_gateway::model_ready(const std::string& name, int64_t version,
                                 transports::completion<runtime::status> done) const {
  if (!srv_.model_ready(name, version))
    if (auto st = not_ready(name, version); !st.is_ok())
      return done(std::move(st));
  // READY (maybe only just): the model's own checks have their say.
  srv_.check_model_ready(name, version, [done = std::move(done), name, version](bool ready) {
    done(ready ? runtime::status::ok()
               : runtime::unavailable("model '" + name + "' version "
                                      + (version < 0 ? std::string{"(latest)"}
                                                     : std::to_string(version))
                                      + " is not ready"));
  });
}

runtime::status server_gateway::not_ready(const std::string& name, int64_t version) const {
  // Not READY: the lookup says whether the model or version exists at all.
  auto config = srv_.model_config(name, version);
  if (config)
    return runtime::status::ok();
  // A model (or version) the repository knows that is unloaded or failed
  // exists but is not ready (400), unlike an unknown one (404).
  const auto& err = config.error();
  if (srv_.model_known(name, version))
    return runtime::unavailable(err.message());
  return err;
}

runtime::result<runtime::model_metadata> server_gateway::model_metadata(const std::string& name,
                                                                        int64_t version) const {
  return srv_.model_metadata(name, version);
}

runtime::result<std::shared_ptr<const inference::ModelConfig>>
server_gateway::model_config(const std::string& name, int64_t version) const {
  return srv_.model_config(name, version);
}

runtime::result<runtime::resolved_model_ptr> server_gateway::resolve(const std::string& name,
                                                                     int64_t version) const {
  return srv_.resolve(name, version);
}

runtime::result<std::vector<runtime::statistics::statistics_snapshot>>
server_gateway::model_statistics(const std::string& name, int64_t version) const {
  return srv_.model_statistics(name, version);
}

void server_gateway::repository_index(
  bool ready_only, transports::completion<runtime::result<std::vector<runtime::index_entry>>> done) {
  srv_.repository_index_async(ready_only, std::move(done));
}

void server_gateway::load(std::string name, runtime::load_parameters request,
                          transports::completion<runtime::status> done) {
  srv_.load_async(name, std::move(request), std::move(done));
}

void server_gateway::unload(std::string name, bool unload_dependents,
                            transports::completion<runtime::status> done) {
  srv_.unload_async(name, unload_dependents, std::move(done));
}

void server_gateway::register_repository(std::string path,
                                         std::map<std::string, std::string> name_mapping,
                                         transports::completion<runtime::status> done) {
  srv_.register_model_repository_async(path, name_mapping, std::move(done));
}

void server_gateway::unregister_repository(std::string path,
                                           transports::completion<runtime::status> done) {
  srv_.unregister_model_repository_async(path, std::move(done));
}

std::string server_gateway::metrics_text() const { return srv_.metrics_text(); }

transports::log_settings server_gateway::logging() const {
  return runtime::logging::current_settings();
}

runtime::result<transports::log_settings>
server_gateway::update_logging(const transports::log_settings_update& update) {
  return runtime::logging::apply_settings(update);
}

runtime::status server_gateway::known_model(const std::string& model) const {
  // Triton asks whether the model is ready, and answers as for an unknown
  // model when it is not.
  if (model.empty() || srv_.model_ready(model))
    return runtime::status::ok();
  return runtime::invalid_argument("Request for unknown model : " + model);
}

runtime::result<runtime::tracing::trace_settings>
server_gateway::trace_settings(const std::string& model) const {
  CONCH_RUNTIME_RETURN_IF_ERROR(known_model(model));
  return srv_.trace_settings(model);
}

runtime::result<runtime::tracing::trace_settings>
server_gateway::update_trace_settings(const std::string& model,
                                      const runtime::tracing::trace_settings_update& update) {
  CONCH_RUNTIME_RETURN_IF_ERROR(known_model(model));
  return srv_.update_trace_settings(model, update);
}

std::shared_ptr<runtime::shm::region_registry> server_gateway::shared_memory() const {
  return srv_.shared_memory();
}

transports::cancel_fn server_gateway::submit(runtime::inference_request request,
                                             runtime::response_callback on_response,
                                             runtime::submit_policy policy) {
  auto handle = srv_.submit(std::move(request), std::move(on_response), policy);
  return [handle] { handle.cancel(); };
}

} // namespace conch::actors
