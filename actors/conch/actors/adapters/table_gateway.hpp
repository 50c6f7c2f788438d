#pragma once

#include <memory>

#include <caf/actor_addr.hpp>
#include <caf/weak_intrusive_ptr.hpp>

#include "conch/actors/server/server_flags.hpp"
#include "conch/runtime/backends/backend.hpp"

namespace conch::actors {

/// The server's models as a backend calls them (an ensemble's steps, BLS):
/// each job enters through the front door as a model's own request
/// (runtime::submitter::model): it resolves against the model table the
/// repository publishes, runs on the direct lane where the version has an
/// idle instance, and otherwise goes to the version's scheduler as an
/// adapter would send it. It is not refused while the server stops: the steps of a request admitted before
/// the stop run, and the repository drains ensembles before the models they
/// call. Holds the flags weakly: the schedulers hold this gateway, and the
/// table the flags publish holds the schedulers. Loads and unloads go to
/// the repository as a client's would.
class table_gateway final : public runtime::backends::model_gateway {
 public:
  /// `repository` answers the load and unload requests (held weakly: it
  /// holds this gateway).
  table_gateway(const std::shared_ptr<const server_flags>& flags, caf::weak_actor_ptr repository)
    : flags_(flags), repository_(std::move(repository)) {}

  void submit(runtime::job_ptr job) override;
  runtime::result<std::shared_ptr<const inference::ModelConfig>>
  config_of(const std::string& name, int64_t version) const override;
  bool admitting() const override;
  void load(const std::string& name, runtime::load_parameters parameters,
            status_callback done) override;
  void unload(const std::string& name, bool dependents, status_callback done) override;

 private:
  /// The current table; empty once the server is gone.
  model_table_ptr table() const;

  std::weak_ptr<const server_flags> flags_;
  caf::weak_actor_ptr repository_;
};

} // namespace conch::actors
