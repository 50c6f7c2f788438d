#include "conch/transports/http/body_decoding.hpp"

#include "conch/transports/http/content_coding.hpp"

namespace conch::transports::http {

std::optional<response> decode_request_body(
    request& req, size_t max_size,
    const std::shared_ptr<runtime::statistics::byte_budget>& budget) {
  auto* field = req.headers.find("Content-Encoding");
  if (field == nullptr)
    return std::nullopt;
  auto coding = parse_content_coding(*field);
  if (!coding) {
    auto answer = response::error(501, coding.error().message());
    answer.headers.set("Accept-Encoding", "gzip, deflate");
    return answer;
  }
  if (*coding == content_coding::identity)
    return std::nullopt;
  auto decoded = decode_body(*coding, req.body, max_size);
  if (!decoded)
    return response::error(400, decoded.error().message());
  // The decoded bytes replace the encoded ones in the budget.
  runtime::statistics::byte_ticket ticket;
  if (!ticket.take(budget, decoded->size()))
    return response::error(503, "the server is busy: request bodies in flight exceed "
                                    + std::to_string(budget->limit()) + " bytes");
  req.body = std::move(*decoded);
  req.input_bytes = std::move(ticket);
  return std::nullopt;
}

} // namespace conch::transports::http
