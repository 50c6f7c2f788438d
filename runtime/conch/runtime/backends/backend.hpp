#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "conch/runtime/backends/readiness_probe.hpp"
#include "conch/runtime/inference_job.hpp"
#include "conch/runtime/repository/load_parameters.hpp"
#include "conch/runtime/result.hpp"
#include "model_config.pb.h"

namespace conch::runtime::backends {

/// The server's models as a backend may call them (an ensemble's steps):
/// requests go where a client's would, through the current model table.
/// Thread-safe.
class model_gateway {
 public:
  virtual ~model_gateway() = default;

  /// Sends `job` to the version its request names, as an adapter would
  /// (resolve, validate, schedule); the job's callback hears the outcome,
  /// also when the model is unknown or not ready. May run the job on the
  /// calling thread before it returns.
  virtual void submit(job_ptr job) = 0;

  /// The configuration of the version a request for (`name`, `version`)
  /// would reach now; the error a request would get when there is none.
  virtual result<std::shared_ptr<const inference::ModelConfig>>
  config_of(const std::string& name, int64_t version) const = 0;

  /// False once the server stopped admitting requests: a backend that calls
  /// models on its own (BLS) may then only do so for the requests it still
  /// serves, which the stop drains.
  virtual bool admitting() const { return true; }

  /// Receives the outcome of a repository operation.
  using status_callback = std::function<void(status)>;

  /// Loads (or reloads) `name` as a load request would, with what replaces
  /// its configuration and files; `done` hears when it is READY or failed,
  /// on a thread of the server's. UNSUPPORTED where no repository can be
  /// reached.
  virtual void load(const std::string& /*name*/, load_parameters /*parameters*/,
                    status_callback done) {
    done(unsupported("loading models is not supported here"));
  }

  /// Unloads `name` (and, with `dependents`, what only it needed) as an
  /// unload request would; `done` hears when it is unloaded.
  virtual void unload(const std::string& /*name*/, bool /*dependents*/, status_callback done) {
    done(unsupported("unloading models is not supported here"));
  }
};

/// What a backend learns about the model version it serves.
struct model_context {
  /// The normalised, validated configuration.
  std::shared_ptr<const inference::ModelConfig> config;
  std::string name;
  int64_t version = 0;
  /// <repository>/<model>
  std::filesystem::path model_path;
  /// <repository>/<model>/<version>
  std::filesystem::path version_path;
  /// The repository the model was found in.
  std::filesystem::path repository_path;
  /// The server's other models; null where none can be reached (unit tests).
  std::shared_ptr<model_gateway> models;
};

/// What a backend learns about one instance it creates.
struct instance_context {
  /// "<group name>_<index in the group>", as Triton names instances.
  std::string name;
  /// KIND_CPU, KIND_GPU or KIND_MODEL.
  inference::ModelInstanceGroup::Kind kind = inference::ModelInstanceGroup::KIND_CPU;
  /// The GPU for KIND_GPU instances.
  int32_t device_id = 0;
  /// The position of the instance among all instances of the model.
  size_t index = 0;
};

/// One batch handed to an instance: the jobs, in arrival order.
using batch = std::vector<job_ptr>;

/// An execution context of a model: owns whatever state running the model
/// needs. Only one thread calls execute() at a time, but not always the same
/// one: an instance of a model that does not block may also run requests on
/// the threads that submit them (the scheduler's direct lane).
class backend_instance {
 public:
  virtual ~backend_instance() = default;

  /// Runs one batch. Every job must eventually receive a final response
  /// (job.respond / job.fail); a non-decoupled backend answers every job before
  /// returning. The backend stamps times.input_end and times.output_start of
  /// each job when it can; the instance stamps exec_start and exec_end.
  virtual void execute(batch& jobs) = 0;

  /// Asks an execute() that is being given up on (the exit timeout passed
  /// while it ran) to return, best effort: its jobs are answered already.
  /// Called from another thread while execute() may run; must not block.
  virtual void interrupt() noexcept {}

  /// The instance's own readiness check, or null when it has none (the
  /// model's readiness is then the server's alone). Asked once the instance
  /// was created, from any thread; the probe may outlive the instance.
  virtual std::shared_ptr<readiness_probe> readiness() const { return nullptr; }
};

/// One loaded model version of a backend; creates its instances.
class backend_model {
 public:
  virtual ~backend_model() = default;

  /// Creates one instance, on the thread of the actor that will run it.
  virtual result<std::unique_ptr<backend_instance>> create_instance(const instance_context&) = 0;

  /// True when execute() may block (sleeps, Python, external runtimes): such
  /// instances get a thread of their own instead of a scheduler thread, and
  /// never run on the threads that submit requests. True unless a backend
  /// opts out: one that returns false promises that its create_instance and
  /// execute never block, and may then run on the actor system's threads
  /// and on the direct lane.
  virtual bool blocking() const noexcept { return true; }
};

} // namespace conch::runtime::backends
