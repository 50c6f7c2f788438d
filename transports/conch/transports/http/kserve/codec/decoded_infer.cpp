#include "conch/transports/http/kserve/codec/decoded_infer.hpp"

namespace conch::transports::http::kserve::codec {

const output_encoding* decoded_infer::listed_output(std::string_view name) const noexcept {
  for (const auto& o : outputs)
    if (o.name == name)
      return &o;
  return nullptr;
}

} // namespace conch::transports::http::kserve::codec
