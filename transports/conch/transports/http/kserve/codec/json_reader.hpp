#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "conch/runtime/status.hpp"
#include "conch/transports/http/kserve/codec/json_policy.hpp"

namespace conch::transports::http::kserve::codec {

/// A document for parsing one request header: its values and the parser's
/// stack live in blocks of this thread's memory that every such document
/// reuses, so a typical header is parsed without touching the heap (larger
/// ones grow into it). Only the outermost scratch document alive on a thread
/// uses the blocks; one made while it lives uses the heap.
class scratch_document {
 public:
  /// A Document whose parse stack comes from a pool too. Its values are
  /// plain rapidjson::Value.
  using document = rapidjson::GenericDocument<rapidjson::UTF8<>, rapidjson::MemoryPoolAllocator<>,
                                              rapidjson::MemoryPoolAllocator<>>;

  scratch_document();
  ~scratch_document();
  scratch_document(const scratch_document&) = delete;
  scratch_document& operator=(const scratch_document&) = delete;

  document& doc() noexcept { return doc_; }

  /// Parses `text` into doc() under the JSON policy (parse_json), with the
  /// parser's stack in this document's pool.
  runtime::status parse(std::string_view text) { return parse_json(text, doc_, &stack_); }

 private:
  bool owns_blocks_;
  rapidjson::MemoryPoolAllocator<> values_;
  rapidjson::MemoryPoolAllocator<> stack_;
  document doc_;
};

/// The member `name` of `object`, or nullptr when absent or `object` is not
/// an object.
const rapidjson::Value* find_member(const rapidjson::Value& object, std::string_view name) noexcept;

/// Reads optional member `name` of `object` as a string into `out`; absent
/// leaves `out` alone. A non-string is invalid_argument
/// "Unable to parse '<name>': expected a string".
runtime::status read_string(const rapidjson::Value& object, std::string_view name,
                            std::string& out);

/// As read_string, for a JSON unsigned integer.
runtime::status read_uint(const rapidjson::Value& object, std::string_view name, uint64_t& out);

/// As read_string, for a JSON boolean.
runtime::status read_bool(const rapidjson::Value& object, std::string_view name, bool& out);

/// Reads required member `name` as a string; absent is invalid_argument
/// "Unable to parse '<name>': the field is missing".
runtime::status require_string(const rapidjson::Value& object, std::string_view name,
                               std::string& out);

/// invalid_argument "Unable to parse '<field>': <reason>".
runtime::status parse_error(std::string_view field, std::string_view reason);

/// `v` as a string_view (strings may hold NUL bytes). Requires v.IsString().
inline std::string_view string_of(const rapidjson::Value& v) noexcept {
  return {v.GetString(), v.GetStringLength()};
}

} // namespace conch::transports::http::kserve::codec
