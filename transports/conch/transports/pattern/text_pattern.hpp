#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "conch/runtime/result.hpp"

namespace re2 {
class RE2;
} // namespace re2

namespace conch::transports::pattern {

/// Whether a text_pattern tells upper from lower case.
enum class letter_case { sensitive, ignored };

/// A regular expression an operator configured, matched against text a
/// client sent. Compiled with RE2, which never backtracks: a match takes time
/// linear in the text and bounded memory, whatever the pattern and the text.
/// Patterns and texts are read as bytes (Latin-1), as std::regex<char> reads
/// them. Immutable; copies share the compiled form. Thread-safe.
class text_pattern {
 public:
  // -- construction ----------------------------------------------------------

  /// Compiles `source`; INVALID_ARG with RE2's reason ("missing ): (") when
  /// it is not a valid regular expression.
  static runtime::result<text_pattern> compile(std::string_view source, letter_case letters);

  // -- matching --------------------------------------------------------------

  /// True when the pattern matches some part of `text`.
  bool found_in(std::string_view text) const noexcept;

  /// True when the pattern matches all of `text`.
  bool matches_all_of(std::string_view text) const noexcept;

  // -- properties ------------------------------------------------------------

  /// The pattern as configured.
  const std::string& source() const noexcept;

 private:
  explicit text_pattern(std::shared_ptr<const re2::RE2> compiled) noexcept
    : compiled_(std::move(compiled)) {}

  std::shared_ptr<const re2::RE2> compiled_;
};

} // namespace conch::transports::pattern
