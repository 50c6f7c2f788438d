#include "conch/transports/http/cloud/sagemaker_models.hpp"

namespace conch::transports::http::cloud {

void sagemaker_models::add(sagemaker_model m) {
  std::lock_guard<std::mutex> guard{mutex_};
  auto name = m.name;
  models_.insert_or_assign(std::move(name), std::move(m));
}

std::optional<sagemaker_model> sagemaker_models::find(const std::string& name) const {
  std::lock_guard<std::mutex> guard{mutex_};
  auto it = models_.find(name);
  if (it == models_.end())
    return std::nullopt;
  return it->second;
}

std::optional<sagemaker_model> sagemaker_models::take(const std::string& name) {
  std::lock_guard<std::mutex> guard{mutex_};
  auto it = models_.find(name);
  if (it == models_.end())
    return std::nullopt;
  auto out = std::move(it->second);
  models_.erase(it);
  return out;
}

std::vector<sagemaker_model> sagemaker_models::list() const {
  std::lock_guard<std::mutex> guard{mutex_};
  std::vector<sagemaker_model> out;
  out.reserve(models_.size());
  for (const auto& [name, m] : models_)
    out.push_back(m);
  return out;
}

} // namespace conch::transports::http::cloud
