#include "conch/transports/pattern/text_pattern.hpp"

#include <re2/re2.h>

namespace conch::transports::pattern {

namespace {

re2::StringPiece piece(std::string_view text) noexcept {
  return re2::StringPiece{text.data(), text.size()};
}

} // namespace

runtime::result<text_pattern> text_pattern::compile(std::string_view source,
                                                    letter_case letters) {
  RE2::Options options;
  options.set_encoding(RE2::Options::EncodingLatin1);
  options.set_case_sensitive(letters == letter_case::sensitive);
  // The reason comes back in the status; RE2 would also print it.
  options.set_log_errors(false);
  auto compiled = std::make_shared<const re2::RE2>(piece(source), options);
  if (!compiled->ok())
    return runtime::invalid_argument(compiled->error());
  return text_pattern{std::move(compiled)};
}

bool text_pattern::found_in(std::string_view text) const noexcept {
  return RE2::PartialMatch(piece(text), *compiled_);
}

bool text_pattern::matches_all_of(std::string_view text) const noexcept {
  return RE2::FullMatch(piece(text), *compiled_);
}

const std::string& text_pattern::source() const noexcept {
  return compiled_->pattern();
}

} // namespace conch::transports::pattern
