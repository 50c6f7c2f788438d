#include "conch/transports/http/kserve/header_forwarding.hpp"

#include <array>
#include <string_view>

namespace conch::transports::http::kserve {

bool reserved_parameter(std::string_view name) noexcept {
  static constexpr std::array<std::string_view, 7> reserved{
    "sequence_id", "sequence_start", "sequence_end",      "priority",
    "timeout",     "headers",        "binary_data_output"};
  for (auto r : reserved)
    if (iequals(name, r))
      return true;
  return name.size() >= 7 && iequals(name.substr(0, 7), "triton_");
}

runtime::status forward_headers(const header_map& headers, const std::regex& pattern,
                                runtime::parameter_list& out) {
  for (const auto& [name, value] : headers) {
    if (!std::regex_search(name, pattern))
      continue;
    if (reserved_parameter(name))
      return runtime::invalid_argument("Header '" + name + "' is reserved");
    out.push_back(runtime::parameter{name, value});
  }
  return runtime::status::ok();
}

} // namespace conch::transports::http::kserve
