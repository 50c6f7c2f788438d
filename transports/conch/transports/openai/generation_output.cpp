#include "conch/transports/openai/generation_output.hpp"

#include <cstdint>
#include <cstring>

#include "conch/runtime/bytes_elements.hpp"
#include "conch/runtime/data_type.hpp"

namespace conch::transports::openai {

namespace {

const runtime::tensor* find_output(const runtime::inference_response& r, const char* name) {
  for (const auto& t : r.outputs)
    if (t.name == name)
      return &t;
  return nullptr;
}

template <class T>
int64_t read_as(const std::byte* data) {
  T v;
  std::memcpy(&v, data, sizeof(T));
  return static_cast<int64_t>(v);
}

// The first element of an integer tensor; unset for any other.
std::optional<int64_t> first_integer(const runtime::tensor* t) {
  using runtime::data_type;
  if (t == nullptr || t->data.size() < runtime::element_size(t->type)
      || runtime::element_size(t->type) == 0)
    return std::nullopt;
  const auto* d = t->data.data();
  switch (t->type) {
    case data_type::int32: return read_as<int32_t>(d);
    case data_type::int64: return read_as<int64_t>(d);
    case data_type::uint32: return read_as<uint32_t>(d);
    case data_type::uint64: return read_as<uint64_t>(d);
    case data_type::int16: return read_as<int16_t>(d);
    case data_type::uint16: return read_as<uint16_t>(d);
    case data_type::int8: return read_as<int8_t>(d);
    case data_type::uint8: return read_as<uint8_t>(d);
    default: return std::nullopt;
  }
}

runtime::result<std::string> one_string(const runtime::tensor& t) {
  if (t.type != runtime::data_type::bytes)
    return runtime::internal_error("output '" + t.name + "' is not TYPE_STRING");
  auto elements = runtime::split_bytes_elements(t.data.data(), t.data.size());
  if (!elements)
    return elements.error();
  if (elements->size() != 1)
    return runtime::internal_error("Expected to find 1 string in the output, found "
                                   + std::to_string(elements->size()) + " instead.");
  return std::string{(*elements)[0]};
}

} // namespace

runtime::result<generation_output> read_generation(const runtime::inference_response& response) {
  generation_output out;
  if (const auto* text = find_output(response, "text_output")) {
    auto s = one_string(*text);
    if (!s)
      return s.error();
    out.text = std::move(*s);
  }
  if (const auto* lp = find_output(response, "logprobs")) {
    auto s = one_string(*lp);
    if (s && *s != "null")
      out.logprobs_json = std::move(*s);
  }
  out.prompt_tokens = first_integer(find_output(response, "num_input_tokens"));
  out.completion_tokens = first_integer(find_output(response, "num_output_tokens"));
  return out;
}

int64_t saturating_add(int64_t a, int64_t b) noexcept {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum))
    return b > 0 ? INT64_MAX : INT64_MIN;
  return sum;
}

void usage_tally::add(const generation_output& piece) {
  if (!prompt_ && piece.prompt_tokens)
    prompt_ = piece.prompt_tokens;
  if (piece.completion_tokens)
    completion_ = saturating_add(completion_.value_or(0), *piece.completion_tokens);
}

std::optional<usage_counts> usage_tally::counts() const {
  if (!prompt_ || !completion_)
    return std::nullopt;
  return usage_counts{*prompt_, *completion_};
}

} // namespace conch::transports::openai
