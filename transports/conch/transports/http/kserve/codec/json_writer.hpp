#pragma once

#include <string>

#include <rapidjson/writer.h>

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

} // namespace conch::transports::http::kserve::codec
