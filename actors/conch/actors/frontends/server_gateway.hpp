#pragma once

#include "conch/actors/server.hpp"
#include "conch/transports/gateway.hpp"

namespace conch::actors {

/// The transports' gateway over a conch::server: lookups read the server's
/// published model table, repository operations use its asynchronous
/// variants, inference goes through server::submit. Holds a handle of the
/// server, so the server lives as long as this does. Thread-safe.
class server_gateway final : public transports::gateway {
 public:
  explicit server_gateway(server srv) : srv_(std::move(srv)) {}

  bool live() const override;
  bool ready() const override;
  runtime::server_metadata server_metadata() const override;
  void model_ready(const std::string& name, int64_t version,
                   transports::completion<runtime::status> done) const override;
  runtime::result<runtime::model_metadata> model_metadata(const std::string& name,
                                                         int64_t version) const override;
  runtime::result<std::shared_ptr<const inference::ModelConfig>>
  model_config(const std::string& name, int64_t version) const override;
  runtime::result<runtime::resolved_model_ptr> resolve(const std::string& name,
                                                       int64_t version) const override;
  runtime::result<std::vector<runtime::statistics::statistics_snapshot>>
  model_statistics(const std::string& name, int64_t version) const override;
  void repository_index(
    bool ready_only,
    transports::completion<runtime::result<std::vector<runtime::index_entry>>> done)
    override;
  void load(std::string name, runtime::load_parameters request,
            transports::completion<runtime::status> done) override;
  void unload(std::string name, bool unload_dependents,
              transports::completion<runtime::status> done) override;
  void register_repository(std::string path, std::map<std::string, std::string> name_mapping,
                           transports::completion<runtime::status> done) override;
  void unregister_repository(std::string path,
                             transports::completion<runtime::status> done) override;
  std::string metrics_text() const override;
  transports::log_settings logging() const override;
  runtime::result<transports::log_settings>
  update_logging(const transports::log_settings_update& update) override;
  runtime::result<runtime::tracing::trace_settings>
  trace_settings(const std::string& model) const override;
  runtime::result<runtime::tracing::trace_settings>
  update_trace_settings(const std::string& model,
                        const runtime::tracing::trace_settings_update& update) override;
  std::shared_ptr<runtime::shm::region_registry> shared_memory() const override;
  transports::cancel_fn submit(runtime::inference_request request,
                               runtime::response_callback on_response,
                               runtime::submit_policy policy) override;

 private:
  /// Why a version that is not READY is not: NOT_FOUND when unknown.
  runtime::status not_ready(const std::string& name, int64_t version) const;
  // Ok for the global settings (empty) and a ready model.
  runtime::status known_model(const std::string& model) const;

  server srv_;
};

/// The extensions of the KServe HTTP frontend: the server's own, plus what
/// the frontend implements itself, in the protocol's order.
std::vector<std::string> http_extensions(const std::vector<std::string>& server_extensions);

} // namespace conch::actors
