#include "conch/transports/http/kserve/codec/json_reader.hpp"

namespace conch::transports::http::kserve::codec {

using runtime::status;

namespace {

// The blocks scratch documents share: 16 KiB holds the values of a header
// with a few dozen tensors, 4 KiB the parse stack of most.
constexpr size_t values_size = 16 * 1024;
constexpr size_t stack_size = 4 * 1024;
alignas(16) thread_local char values_block[values_size];
alignas(16) thread_local char stack_block[stack_size];
thread_local bool blocks_in_use = false;

using pool = rapidjson::MemoryPoolAllocator<>;

} // namespace

scratch_document::scratch_document()
  : owns_blocks_(!blocks_in_use),
    values_(owns_blocks_ ? pool(values_block, values_size) : pool()),
    stack_(owns_blocks_ ? pool(stack_block, stack_size) : pool()),
    doc_(&values_, 256, &stack_) {
  if (owns_blocks_)
    blocks_in_use = true;
}

scratch_document::~scratch_document() {
  if (owns_blocks_)
    blocks_in_use = false;
}

const rapidjson::Value* find_member(const rapidjson::Value& object,
                                    std::string_view name) noexcept {
  if (!object.IsObject())
    return nullptr;
  rapidjson::Value key{rapidjson::StringRef(name.data(), name.size())};
  auto it = object.FindMember(key);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

status parse_error(std::string_view field, std::string_view reason) {
  std::string m = "Unable to parse '";
  m += field;
  m += "': ";
  m += reason;
  return runtime::invalid_argument(std::move(m));
}

status read_string(const rapidjson::Value& object, std::string_view name, std::string& out) {
  auto* v = find_member(object, name);
  if (v == nullptr)
    return status::ok();
  if (!v->IsString())
    return parse_error(name, "expected a string");
  out.assign(v->GetString(), v->GetStringLength());
  return status::ok();
}

status read_uint(const rapidjson::Value& object, std::string_view name, uint64_t& out) {
  auto* v = find_member(object, name);
  if (v == nullptr)
    return status::ok();
  if (!v->IsUint64())
    return parse_error(name, "expected an unsigned integer");
  out = v->GetUint64();
  return status::ok();
}

status read_bool(const rapidjson::Value& object, std::string_view name, bool& out) {
  auto* v = find_member(object, name);
  if (v == nullptr)
    return status::ok();
  if (!v->IsBool())
    return parse_error(name, "expected a boolean");
  out = v->GetBool();
  return status::ok();
}

status require_string(const rapidjson::Value& object, std::string_view name, std::string& out) {
  if (find_member(object, name) == nullptr)
    return parse_error(name, "the field is missing");
  return read_string(object, name, out);
}

} // namespace conch::transports::http::kserve::codec
