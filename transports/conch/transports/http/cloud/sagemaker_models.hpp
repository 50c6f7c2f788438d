#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace conch::transports::http::cloud {

/// One model a SageMaker multi-model endpoint loaded.
struct sagemaker_model {
  /// SageMaker's name for it: the load body's "model_name", the {name} of
  /// /models/{name}.
  std::string name;
  /// The repository registered for it, reported as its "modelUrl".
  std::string repository;
  /// The name the server knows it by: X-Amzn-SageMaker-Target-Model at load
  /// time, else `name`.
  std::string target;
};

/// The models a SageMaker multi-model endpoint has loaded, by SageMaker's
/// name. Owned by the frontend, so a restarted transport finds them again.
/// Thread-safe.
class sagemaker_models {
 public:
  /// Records a loaded model, replacing one of the same name.
  void add(sagemaker_model m);

  /// The model called `name`, if loaded.
  std::optional<sagemaker_model> find(const std::string& name) const;

  /// Removes and returns the model called `name` (for an unload); nullopt
  /// when none is loaded.
  std::optional<sagemaker_model> take(const std::string& name);

  /// Every loaded model, by name.
  std::vector<sagemaker_model> list() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, sagemaker_model> models_;
};

} // namespace conch::transports::http::cloud
