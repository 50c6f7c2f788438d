#include "conch/transports/http/body_decoding.hpp"

#include <algorithm>
#include <cstdint>

#include "conch/transports/http/content_coding.hpp"

namespace conch::transports::http {

namespace {

/// Bytes `budget` has left; all of them where it is absent or unlimited.
size_t room_in(const runtime::statistics::byte_budget* budget) noexcept {
  if (budget == nullptr || budget->limit() == 0)
    return SIZE_MAX;
  auto used = static_cast<size_t>(std::max<int64_t>(budget->used(), 0));
  return used >= budget->limit() ? 0 : budget->limit() - used;
}

response busy(const runtime::statistics::byte_budget& budget, const refusal_writer& writer) {
  return refuse(writer, 503,
                "the server is busy: request bodies in flight exceed "
                  + std::to_string(budget.limit()) + " bytes",
                runtime::statistics::request_refusal::input_budget);
}

} // namespace

std::optional<response> decode_request_body(
    request& req, size_t max_size,
    const std::shared_ptr<runtime::statistics::byte_budget>& budget,
    const refusal_writer& writer) {
  auto* field = req.headers.find("Content-Encoding");
  if (field == nullptr)
    return std::nullopt;
  auto coding = parse_content_coding(*field);
  if (!coding) {
    auto answer = refuse(writer, 501, coding.error().message());
    answer.headers.set("Accept-Encoding", "gzip, deflate");
    return answer;
  }
  if (*coding == content_coding::identity)
    return std::nullopt;
  // The decoded bytes replace the encoded ones in the budget, so these make
  // room for them: on an idle server a body that decodes past the whole
  // budget (max_size, at most) is too large, not busy.
  auto room = room_in(budget.get());
  if (room != SIZE_MAX)
    room += std::min(req.input_bytes.bytes(), SIZE_MAX - 1 - room);
  auto decoded = decode_body(*coding, req.body, max_size, room);
  if (!decoded && decoded.error().code() == runtime::errc::unavailable)
    return busy(*budget, writer);
  if (!decoded)
    return refuse(writer, 400, decoded.error().message());
  req.input_bytes.release();
  runtime::statistics::byte_ticket ticket;
  if (!ticket.take(budget, decoded->size()))
    return busy(*budget, writer);
  req.body = std::move(*decoded);
  req.input_bytes = std::move(ticket);
  return std::nullopt;
}

} // namespace conch::transports::http
