#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace conch::runtime {

/// The class labels of a model's outputs, read from their label files when
/// the model loads (see repository/label_files.hpp) and shared, read-only, by
/// every response of the model: the classification extension names classes
/// with them without touching the file system on the request path.
class output_labels {
 public:
  /// Sets the labels of `output`; label i names class i.
  void add(std::string output, std::vector<std::string> labels) {
    by_output_[std::move(output)] = std::move(labels);
  }

  /// The labels of `output`, or nullptr when it has none.
  const std::vector<std::string>* find(std::string_view output) const noexcept {
    auto it = by_output_.find(output);
    return it == by_output_.end() ? nullptr : &it->second;
  }

  bool empty() const noexcept { return by_output_.empty(); }

 private:
  std::map<std::string, std::vector<std::string>, std::less<>> by_output_;
};

} // namespace conch::runtime
