#include "conch/transports/openai/stop_scanner.hpp"

#include <algorithm>

namespace conch::transports::openai {

stop_scanner::stop_scanner(std::vector<std::string> stops) {
  for (auto& s : stops)
    if (!s.empty()) {
      longest_ = std::max(longest_, s.size());
      stops_.push_back(std::move(s));
    }
}

std::string stop_scanner::feed(std::string_view piece) {
  if (stopped_)
    return {};
  if (stops_.empty())
    return std::string{piece};
  // Only the held-back tail and the new piece can hold a new match, and a
  // match must end inside the new piece, so the search starts where one
  // could begin.
  const size_t tail = pending_.size();
  pending_.append(piece);
  const size_t from = tail >= longest_ ? tail - longest_ + 1 : 0;
  size_t first = std::string::npos;
  for (const auto& s : stops_) {
    auto at = pending_.find(s, from);
    if (at < first)
      first = at;
  }
  if (first != std::string::npos) {
    stopped_ = true;
    std::string out = pending_.substr(0, first);
    pending_.clear();
    return out;
  }
  // Keep the longest suffix that is a prefix of some stop sequence.
  size_t keep = 0;
  for (const auto& s : stops_) {
    size_t most = std::min(s.size() - 1, pending_.size());
    for (size_t n = most; n > keep; --n)
      if (pending_.compare(pending_.size() - n, n, s, 0, n) == 0) {
        keep = n;
        break;
      }
  }
  std::string out = pending_.substr(0, pending_.size() - keep);
  pending_.erase(0, pending_.size() - keep);
  return out;
}

std::string stop_scanner::flush() {
  std::string out;
  out.swap(pending_);
  return out;
}

} // namespace conch::transports::openai
