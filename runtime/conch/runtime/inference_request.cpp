#include "conch/runtime/inference_request.hpp"

#include <algorithm>

namespace conch::runtime {

const tensor* inference_request::input(const std::string& name) const noexcept {
  for (const auto& t : inputs)
    if (t.name == name)
      return &t;
  return nullptr;
}

bool inference_request::wants_output(const std::string& name) const noexcept {
  return requested_outputs.empty()
         || std::find(requested_outputs.begin(), requested_outputs.end(), name)
              != requested_outputs.end();
}

} // namespace conch::runtime
