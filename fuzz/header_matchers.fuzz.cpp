// What reads request headers and request lines against patterns: the Vertex
// AI redirect table, the RE2 header forward patterns, and the log escaping
// of client text. Any text, repeated up to a megabyte to reach the lengths
// that made std::regex overflow its stack, is matched, refused or escaped,
// never a crash.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/logging/log_line.hpp"
#include "conch/transports/forwarding/header_forwarding.hpp"
#include "conch/transports/http/cloud/vertex_ai_redirect.hpp"
#include "conch/transports/pattern/text_pattern.hpp"
#include "fuzz_input.hpp"

namespace {

using conch::transports::pattern::letter_case;
using conch::transports::pattern::text_pattern;

const std::vector<text_pattern>& forward_patterns() {
  static const std::vector<text_pattern> patterns = [] {
    std::vector<text_pattern> out;
    for (const char* source : {".*", "^x-", "(a|b)*c", "^(x+x+)+$", "trace", "[^/]+/infer$"})
      out.push_back(*text_pattern::compile(source, letter_case::ignored));
    return out;
  }();
  return patterns;
}

void check_redirect(std::string_view text) {
  auto matched = conch::transports::http::cloud::match_vertex_ai_redirect(text);
  if (!matched)
    return;
  std::string joined;
  for (const auto& s : matched->segments)
    joined += (joined.empty() ? "" : "/") + s;
  if (joined != text)
    __builtin_trap();
}

void check_patterns(std::string_view text) {
  for (const auto& p : forward_patterns())
    (void) conch::transports::forwarding::forwards_header(text, p);
  // An operator's pattern is trusted, but compiling any text must not
  // crash either.
  if (auto p = text_pattern::compile(text.substr(0, 256), letter_case::sensitive))
    (void) p->found_in(text);
}

void check_escape(std::string_view text) {
  std::string storage;
  auto escaped = conch::runtime::logging::escape_controls(text, storage);
  if (std::any_of(escaped.begin(), escaped.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
      }))
    __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  conch::fuzz::fuzz_input in{data, size};
  auto what = in.byte();
  auto repeat = in.byte();
  auto payload = in.rest();
  std::string text{payload};
  // One input in two is repeated, to a megabyte at most.
  if ((repeat & 0x80) != 0 && !payload.empty()) {
    constexpr size_t limit = 1 << 20;
    auto wanted = static_cast<size_t>(repeat & 0x7f) << 6;
    auto times = std::min(wanted, limit / payload.size());
    for (size_t i = 1; i < times; ++i)
      text.append(payload);
  }
  switch (what % 3) {
    case 0: check_redirect(text); break;
    case 1: check_patterns(text); break;
    default: check_escape(text); break;
  }
  return 0;
}
