#include "conch/transports/grpc/model_version.hpp"

#include <limits>

namespace conch::transports::grpc {

runtime::result<int64_t> parse_model_version(std::string_view text) {
  if (text.empty())
    return int64_t{-1};
  auto bad = [] { return runtime::invalid_argument("version should be an integral value > 0"); };
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return bad();
    int d = c - '0';
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10)
      return bad();
    v = v * 10 + d;
  }
  if (v == 0)
    return bad();
  return v;
}

} // namespace conch::transports::grpc
