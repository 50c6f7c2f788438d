#include "conch/runtime/model_config/load.hpp"

#include "conch/runtime/model_config/parse.hpp"
#include "conch/runtime/model_config/validate.hpp"

namespace conch::runtime::model_config {

result<inference::ModelConfig> load_file(const std::filesystem::path& path,
                                         const std::string& directory_name,
                                         const normalize_options& options) {
  auto config = read_file(path);
  if (!config)
    return config.error();
  const auto file = path.string();
  if (auto st = normalize(*config, directory_name, options); !st)
    return st.with_prefix(file + ": ");
  if (auto st = validate(*config, file); !st)
    return st;
  return config;
}

} // namespace conch::runtime::model_config
