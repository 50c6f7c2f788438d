#include "conch/transports/http/request_parser.hpp"

#include <algorithm>

#include "conch/runtime/clock.hpp"
#include "conch/runtime/request_trace.hpp"
#include "conch/transports/http/owned_bytes.hpp"
#include "conch/transports/http/request_target.hpp"

namespace conch::transports::http {

request_parser::request_parser(parser_events& events, parser_limits limits)
  : events_(events), limits_(limits) {
  llhttp_settings_init(&settings_);
  settings_.on_message_begin = &on_message_begin;
  settings_.on_url = &on_url;
  settings_.on_header_field = &on_header_field;
  settings_.on_header_value = &on_header_value;
  settings_.on_header_value_complete = &on_header_value_complete;
  settings_.on_headers_complete = &on_headers_complete;
  settings_.on_chunk_header = &on_chunk_header;
  settings_.on_body = &on_body;
  settings_.on_message_complete = &on_message_complete;
  llhttp_init(&parser_, HTTP_REQUEST, &settings_);
  parser_.data = this;
}

request_parser::outcome request_parser::feed(const char* data, size_t size, size_t& consumed) {
  consumed = 0;
  if (error_status_ != 0)
    return outcome::failed;
  auto err = llhttp_execute(&parser_, data, size);
  if (err == HPE_OK) {
    consumed = size;
    return outcome::done;
  }
  if (err == HPE_PAUSED || err == HPE_PAUSED_UPGRADE) {
    upgraded_ = err == HPE_PAUSED_UPGRADE;
    consumed = static_cast<size_t>(llhttp_get_error_pos(&parser_) - data);
    return outcome::paused;
  }
  if (error_status_ == 0) {
    const char* reason = llhttp_get_error_reason(&parser_);
    fail(400, std::string{"malformed HTTP request: "} + (reason != nullptr ? reason : "parse error"));
  }
  return outcome::failed;
}

void request_parser::abandon() noexcept {
  ticket_.release();
  body_ = {};
}

void request_parser::resume() {
  if (llhttp_get_errno(&parser_) == HPE_PAUSED)
    llhttp_resume(&parser_);
}

int request_parser::fail(int status, std::string message,
                         std::optional<runtime::statistics::request_refusal> refusal) {
  if (error_status_ == 0) {
    error_status_ = status;
    error_message_ = std::move(message);
    refusal_ = refusal;
  }
  return -1;
}

bool request_parser::count_head_bytes(size_t size) {
  head_bytes_ += size;
  if (head_bytes_ <= limits_.max_head_size)
    return true;
  fail(431, "request line and headers exceed " + std::to_string(limits_.max_head_size) + " bytes",
       runtime::statistics::request_refusal::header_size);
  return false;
}

int request_parser::on_message_begin(llhttp_t* p) {
  auto& self_ = self(p);
  self_.req_ = std::make_shared<request>();
  // Only a server that traces needs to know when a request began.
  if (runtime::tracing_active())
    self_.req_->received_ns = runtime::now_ns();
  self_.url_.clear();
  self_.field_.clear();
  self_.value_.clear();
  self_.head_bytes_ = 0;
  self_.in_trailer_ = false;
  self_.body_ = {};
  self_.announced_ = 0;
  self_.ticket_.release();
  self_.events_.on_message_begin();
  return 0;
}

int request_parser::on_url(llhttp_t* p, const char* at, size_t size) {
  auto& self_ = self(p);
  if (!self_.count_head_bytes(size))
    return -1;
  self_.url_.append(at, size);
  return 0;
}

int request_parser::on_header_field(llhttp_t* p, const char* at, size_t size) {
  auto& self_ = self(p);
  if (!self_.count_head_bytes(size))
    return -1;
  self_.field_.append(at, size);
  return 0;
}

int request_parser::on_header_value(llhttp_t* p, const char* at, size_t size) {
  auto& self_ = self(p);
  if (!self_.count_head_bytes(size))
    return -1;
  self_.value_.append(at, size);
  return 0;
}

int request_parser::on_header_value_complete(llhttp_t* p) {
  auto& self_ = self(p);
  if (!self_.in_trailer_)
    self_.req_->headers.add(std::move(self_.field_), std::move(self_.value_));
  self_.field_.clear();
  self_.value_.clear();
  return 0;
}

int request_parser::on_headers_complete(llhttp_t* p) {
  auto& self_ = self(p);
  auto& req = *self_.req_;
  auto target = parse_request_target(self_.url_);
  if (!target)
    return self_.fail(400, target.error().message());
  req.path = std::move(target->path);
  req.segments = std::move(target->segments);
  req.method = llhttp_method_name(static_cast<llhttp_method_t>(p->method));
  req.version_major = p->http_major;
  req.version_minor = p->http_minor;
  req.keep_alive = llhttp_should_keep_alive(p) != 0;
  self_.in_trailer_ = true;
  if (int rc = self_.start_body(); rc != 0)
    return rc;
  self_.events_.on_request_head(self_.req_, req.headers.has_token("Expect", "100-continue"));
  return 0;
}

// Triton's words for a body past the limit: a JSON body (one without the
// binary extension's header) is "Request JSON size of ...".
std::string request_parser::too_large(std::optional<uint64_t> length) const {
  const bool json = req_->headers.find("Inference-Header-Content-Length") == nullptr;
  std::string text = json ? "Request JSON size" : "Request size";
  if (length)
    text += " of " + std::to_string(*length) + " bytes";
  return text + " exceeds the maximum allowed value of " + std::to_string(limits_.max_body_size)
         + " bytes. Use --http-max-input-size to increase the limit.";
}

int request_parser::start_body() {
  if ((parser_.flags & F_CONTENT_LENGTH) == 0 || (parser_.flags & F_CHUNKED) != 0)
    return 0;
  auto length = parser_.content_length;
  if (length > limits_.max_body_size)
    return fail(400, too_large(length), runtime::statistics::request_refusal::body_size);
  announced_ = static_cast<size_t>(length);
  return 0;
}

// A chunk announced larger than what the body has left is refused at once,
// rather than after the client has sent (or, more likely, failed to send)
// that many bytes.
int request_parser::on_chunk_header(llhttp_t* p) {
  auto& self_ = self(p);
  auto size = p->content_length;
  if (size > self_.limits_.max_body_size - std::min(self_.body_.size(), self_.limits_.max_body_size))
    return self_.fail(400, self_.too_large(std::nullopt),
                      runtime::statistics::request_refusal::body_size);
  return 0;
}

// Memory follows the bytes that arrived, not the length announced: a client
// that announces 64 MiB and sends 10 bytes holds 10 bytes (rounded up to the
// first read). Capacity doubles, capped by the announced length, so a body
// is copied at most about once more than it is received.
int request_parser::grow_body(size_t size) {
  auto needed = body_.size() + size;
  if (needed > limits_.max_body_size)
    return fail(400, too_large(std::nullopt), runtime::statistics::request_refusal::body_size);
  if (needed <= body_.capacity())
    return 0;
  auto capacity = std::max(needed, body_.capacity() * 2);
  if (announced_ > 0)
    capacity = std::min(std::max(capacity, std::min(announced_, size_t{64} << 10)), announced_);
  // A chunked body never reserves past the largest body it may have.
  capacity = std::min(capacity, limits_.max_body_size);
  if (!ticket_.take(limits_.budget, capacity - ticket_.bytes()))
    return fail(503, "the server is busy: request bodies in flight exceed "
                         + std::to_string(limits_.budget->limit()) + " bytes",
                runtime::statistics::request_refusal::input_budget);
  body_.reserve(capacity);
  return 0;
}

int request_parser::on_body(llhttp_t* p, const char* at, size_t size) {
  auto& self_ = self(p);
  if (int rc = self_.grow_body(size); rc != 0)
    return rc;
  self_.body_.append(at, size);
  return 0;
}

int request_parser::on_message_complete(llhttp_t* p) {
  auto& self_ = self(p);
  auto req = std::move(self_.req_);
  if (!self_.body_.empty())
    req->body = owned_bytes(std::move(self_.body_));
  self_.body_ = {};
  req->input_bytes = std::move(self_.ticket_);
  self_.events_.on_request(std::move(req));
  return self_.events_.should_pause() ? HPE_PAUSED : 0;
}

} // namespace conch::transports::http
