// The HTTP/1.1 request parser: any bytes, fed in pieces of any size, with
// pauses after requests, must end in requests or one parse error.
#include <memory>
#include <vector>

#include "conch/transports/http/request_parser.hpp"
#include "fuzz_input.hpp"

namespace {

using namespace conch::transports::http;

class events final : public parser_events {
 public:
  void on_message_begin() override { ++begun; }
  void on_request_head(const request_ptr& req, bool) override { heads.push_back(req); }
  void on_request(request_ptr req) override { done.push_back(std::move(req)); }
  bool should_pause() override { return pause_every != 0 && done.size() % pause_every == 0; }

  size_t pause_every = 0;
  size_t begun = 0;
  std::vector<request_ptr> heads;
  std::vector<request_ptr> done;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  conch::fuzz::fuzz_input in{data, size};
  size_t piece = 1 + in.byte() % 64;
  events ev;
  ev.pause_every = in.byte() % 4;
  parser_limits limits;
  limits.max_body_size = 4096;
  limits.max_head_size = 2048;
  limits.budget = std::make_shared<conch::runtime::statistics::byte_budget>(1 << 20);
  request_parser parser{ev, limits};
  auto bytes = in.rest();
  size_t at = 0;
  while (at < bytes.size()) {
    auto n = std::min(piece, bytes.size() - at);
    size_t used = 0;
    auto outcome = parser.feed(bytes.data() + at, n, used);
    if (outcome == request_parser::outcome::failed)
      break;
    if (outcome == request_parser::outcome::paused) {
      if (parser.upgraded())
        break;
      parser.resume();
      at += used;
      continue;
    }
    at += n;
  }
  for (const auto& r : ev.done)
    if (r->body.size() > limits.max_body_size)
      __builtin_trap();  // a body past the limit got through
  ev.done.clear();
  ev.heads.clear();
  if (limits.budget->used() != 0 && !parser.in_message())
    __builtin_trap();  // bytes held for no request
  return 0;
}
