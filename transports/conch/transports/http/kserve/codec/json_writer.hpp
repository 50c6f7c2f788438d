#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include <rapidjson/writer.h>

#include "conch/runtime/parameter.hpp"

namespace conch::transports::http::kserve::codec {

/// A RapidJSON output stream that appends to a std::string, so the finished
/// JSON can become a response buffer without another copy.
class string_output {
 public:
  using Ch = char;

  explicit string_output(std::string& out) noexcept : out_(&out) {}

  void Put(char c) { out_->push_back(c); }
  void Flush() noexcept {}

 private:
  std::string* out_;
};

/// The writer for response JSON. NaN and infinities are written bare (NaN,
/// Infinity, -Infinity), as Triton does and Python's json accepts.
using json_writer = rapidjson::Writer<string_output, rapidjson::UTF8<>, rapidjson::UTF8<>,
                                      rapidjson::CrtAllocator, rapidjson::kWriteNanAndInfFlag>;

/// Writes `s` as a JSON string.
inline void write_string(json_writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

/// Writes parameter `p` as a member of the object being written: its name,
/// then its value as a JSON string, boolean or number.
inline void write_parameter(json_writer& w, const runtime::parameter& p) {
  write_string(w, p.name);
  std::visit(
    [&w](const auto& v) {
      using T = std::decay_t<decltype(v)>;
      if constexpr (std::is_same_v<T, std::string>)
        write_string(w, v);
      else if constexpr (std::is_same_v<T, bool>)
        w.Bool(v);
      else if constexpr (std::is_same_v<T, int64_t>)
        w.Int64(v);
      else
        w.Double(v);
    },
    p.value);
}

} // namespace conch::transports::http::kserve::codec
