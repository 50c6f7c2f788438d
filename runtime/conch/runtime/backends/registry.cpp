#include "conch/runtime/backends/registry.hpp"

namespace conch::runtime::backends {

namespace {

/// Model-configuration platforms and the backends that serve them, as Triton
/// maps them.
void add_known_platforms(registry& r) {
  r.add_platform("onnxruntime_onnx", "onnxruntime");
  r.add_platform("pytorch_libtorch", "pytorch");
  r.add_platform("tensorflow_savedmodel", "tensorflow");
  r.add_platform("tensorflow_graphdef", "tensorflow");
  r.add_platform("tensorrt_plan", "tensorrt");
}

} // namespace

registry& registry::global() {
  // Built on first use, so backends that register from other libraries meet
  // no static-initialisation order problem; leaked on purpose (see header).
  static registry* instance = [] {
    auto* r = new registry;
    add_known_platforms(*r);
    register_builtin_backends(*r);
    return r;
  }();
  return *instance;
}

void registry::add(backend_entry entry) {
  std::lock_guard<std::mutex> guard{mu_};
  auto name = entry.name;
  backends_[std::move(name)] = std::move(entry);
}

void registry::add_platform(std::string platform, std::string backend) {
  std::lock_guard<std::mutex> guard{mu_};
  platforms_[std::move(platform)] = std::move(backend);
}

std::optional<backend_entry> registry::find(const std::string& name) const {
  std::lock_guard<std::mutex> guard{mu_};
  auto i = backends_.find(name);
  if (i == backends_.end())
    return std::nullopt;
  return i->second;
}

void registry::add_directory_resolver(directory_resolver resolver) {
  std::lock_guard<std::mutex> guard{mu_};
  resolvers_.push_back(std::move(resolver));
}

namespace {

/// A backend name that can only name a folder directly inside the backend
/// directory: a configuration is client input (a load's override), and its
/// backend must not reach elsewhere on disk.
bool plain_folder_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".."
         && name.find_first_of("/\\") == std::string::npos && name.find('\0') == std::string::npos;
}

} // namespace

result<backend_entry> registry::resolve(const inference::ModelConfig& config,
                                        const std::filesystem::path& backend_directory) const {
  std::string name = config.backend();
  if (name.empty()) {
    if (config.platform().empty())
      return invalid_argument("model configuration must specify 'backend' or 'platform'");
    auto mapped = backend_for_platform(config.platform());
    if (!mapped)
      return invalid_argument("unknown platform '" + config.platform() + "'");
    name = std::move(*mapped);
  }
  if (!backend_directory.empty() && plain_folder_name(name)) {
    std::vector<directory_resolver> resolvers;
    {
      std::lock_guard<std::mutex> guard{mu_};
      resolvers = resolvers_;
    }
    for (const auto& resolver : resolvers)
      if (auto found = resolver(name, backend_directory))
        return std::move(*found);
  }
  auto entry = find(name);
  if (!entry) {
    if (name == "python" || name == "onnxruntime")
      return invalid_argument("unable to find backend '" + name
                              + "': it runs in a Python interpreter, and is registered when the "
                                "conch package is imported");
    return invalid_argument("unable to find backend '" + name + "'");
  }
  return std::move(*entry);
}

std::optional<std::string> registry::backend_for_platform(const std::string& platform) const {
  std::lock_guard<std::mutex> guard{mu_};
  auto i = platforms_.find(platform);
  if (i == platforms_.end())
    return std::nullopt;
  return i->second;
}

std::vector<std::string> registry::names() const {
  std::lock_guard<std::mutex> guard{mu_};
  std::vector<std::string> out;
  out.reserve(backends_.size());
  for (const auto& [name, entry] : backends_)
    out.push_back(name);
  return out;
}

} // namespace conch::runtime::backends
