#include "conch/runtime/repository/label_files.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "conch/runtime/contained_path.hpp"

namespace conch::runtime::repository {

namespace {

// The lines of `path`, a trailing "\r" dropped from each; nullopt when the
// file cannot be read.
std::optional<std::vector<std::string>> read_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in)
    return std::nullopt;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    lines.push_back(std::move(line));
  }
  if (in.bad())
    return std::nullopt;
  return lines;
}

} // namespace

result<std::shared_ptr<const output_labels>> load_output_labels(
  const inference::ModelConfig& config, const std::filesystem::path& model_dir) {
  auto labels = std::make_shared<output_labels>();
  for (const auto& output : config.output()) {
    if (output.label_filename().empty())
      continue;
    // Read from the model directory only, links resolved.
    auto resolved = resolve_within(model_dir, output.label_filename());
    if (!resolved)
      return invalid_argument("invalid label file of output '" + output.name()
                              + "': label_filename " + resolved.error().message());
    const auto& path = *resolved;
    errno = 0;
    auto lines = read_lines(path);
    if (!lines) {
      std::string why = errno != 0 ? std::strerror(errno) : "read error";
      return invalid_argument("failed to read the label file '" + path.string() + "' of output '"
                              + output.name() + "': " + why);
    }
    labels->add(output.name(), std::move(*lines));
  }
  if (labels->empty())
    return std::shared_ptr<const output_labels>{};
  return std::shared_ptr<const output_labels>{std::move(labels)};
}

} // namespace conch::runtime::repository
