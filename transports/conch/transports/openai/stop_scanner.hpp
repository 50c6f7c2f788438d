#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace conch::transports::openai {

/// Ends a generated text at the first of the client's stop sequences, for
/// any model: one that honours `stop` itself never sends one, and one that
/// does not is cut here, its request cancelled. Fed the text piece by piece
/// as a stream arrives, it holds back only the tail that could still begin
/// a stop sequence, so what it releases is never taken back. Work and
/// memory are linear in the text times the number of stop sequences.
class stop_scanner {
 public:
  explicit stop_scanner(std::vector<std::string> stops);

  /// Takes the next piece of text and returns what may be sent now. After
  /// a stop sequence was found, returns the text before it and then only "".
  std::string feed(std::string_view piece);

  /// The text held back, once the stream has ended without a stop.
  std::string flush();

  /// True once a stop sequence was found.
  bool stopped() const noexcept { return stopped_; }

 private:
  std::vector<std::string> stops_;
  size_t longest_ = 0;
  std::string pending_;
  bool stopped_ = false;
};

} // namespace conch::transports::openai
