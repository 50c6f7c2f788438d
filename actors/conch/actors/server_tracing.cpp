// The trace settings and trace sampling of conch::server (server.hpp).

#include "conch/actors/server.hpp"
#include "conch/actors/server_core.hpp"

namespace conch::actors {

runtime::tracing::trace_settings server::trace_settings(const std::string& model) const {
  return core_->traces->settings(model);
}

runtime::result<runtime::tracing::trace_settings>
server::update_trace_settings(const std::string& model,
                              const runtime::tracing::trace_settings_update& update) {
  return core_->traces->update(model, update);
}

runtime::request_trace_ptr server::sample_trace(const std::string& model,
                                                bool propagated) const {
  return core_->traces->sample(model, propagated);
}

void server::flush_traces() const { core_->traces->flush(); }

} // namespace conch::actors
