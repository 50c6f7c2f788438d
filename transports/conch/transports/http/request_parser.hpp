#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <llhttp.h>

#include "conch/runtime/statistics/connection_stats.hpp"
#include "conch/transports/http/request.hpp"

namespace conch::transports::http {

/// What the parser reports to its connection. Runs on the loop thread,
/// inside `request_parser::feed`.
class parser_events {
 public:
  virtual ~parser_events() = default;

  /// The first byte of a request arrived.
  virtual void on_message_begin() {}

  /// The head of a request was read; its body follows. `expect_continue` is
  /// true when the client waits for 100 Continue before sending the body.
  virtual void on_request_head(const request_ptr& req, bool expect_continue) = 0;

  /// The whole request was read (body assembled, not yet decoded).
  virtual void on_request(request_ptr req) = 0;

  /// True when parsing should stop after the request just completed (too
  /// many requests in flight, or no more are wanted).
  virtual bool should_pause() = 0;
};

/// The limits the parser enforces.
struct parser_limits {
  /// Largest body, in bytes, before any Content-Encoding is removed.
  size_t max_body_size = 64 * 1024 * 1024;
  /// Largest request line plus header block, in bytes.
  size_t max_head_size = 64 * 1024;
  /// Where body bytes are taken from as they arrive (null: not counted).
  std::shared_ptr<runtime::statistics::byte_budget> budget;
};

/// Turns bytes from one connection into requests, with llhttp. Runs on the
/// loop thread; owns the request being assembled.
class request_parser {
 public:
  /// Why parsing stopped.
  enum class outcome { done, paused, failed };

  request_parser(parser_events& events, parser_limits limits);
  request_parser(const request_parser&) = delete;
  request_parser& operator=(const request_parser&) = delete;

  /// Parses `size` bytes. On `paused`, `consumed` tells how many were used;
  /// call `resume` and feed the rest later. On `failed`, `error_status` and
  /// `error_message` say why; the parser takes no more input.
  outcome feed(const char* data, size_t size, size_t& consumed);

  /// Allows parsing after a pause.
  void resume();

  /// Gives up the request being read (it was answered without being
  /// completed): its body and its bytes of the budget go now.
  void abandon() noexcept;

  /// True while a request has started and not completed.
  bool in_message() const noexcept { return req_ != nullptr; }

  /// True when the request just parsed asked to switch protocols (or was a
  /// CONNECT); the connection reads no further requests after it.
  bool upgraded() const noexcept { return upgraded_; }

  /// The status to answer a failure with (400, 431).
  int error_status() const noexcept { return error_status_; }

  /// A message for the client, naming what was wrong.
  const std::string& error_message() const noexcept { return error_message_; }

  /// Which limit refused the request, when a limit did.
  std::optional<runtime::statistics::request_refusal> refusal() const noexcept { return refusal_; }

 private:
  static request_parser& self(llhttp_t* p) { return *static_cast<request_parser*>(p->data); }
  static int on_message_begin(llhttp_t* p);
  static int on_url(llhttp_t* p, const char* at, size_t size);
  static int on_header_field(llhttp_t* p, const char* at, size_t size);
  static int on_header_value(llhttp_t* p, const char* at, size_t size);
  static int on_header_value_complete(llhttp_t* p);
  static int on_headers_complete(llhttp_t* p);
  static int on_chunk_header(llhttp_t* p);
  static int on_body(llhttp_t* p, const char* at, size_t size);
  static int on_message_complete(llhttp_t* p);

  int fail(int status, std::string message,
           std::optional<runtime::statistics::request_refusal> refusal = std::nullopt);
  bool count_head_bytes(size_t size);
  int start_body();
  // The 400 text of a body past max_body_size (of `length` bytes when known).
  std::string too_large(std::optional<uint64_t> length) const;
  int grow_body(size_t size);

  parser_events& events_;
  parser_limits limits_;
  llhttp_settings_t settings_;
  llhttp_t parser_;
  request_ptr req_;
  std::string url_;
  std::string field_;
  std::string value_;
  size_t head_bytes_ = 0;
  // Past the headers: fields now are a chunked body's trailer, which is
  // counted against the head's limit and dropped. Nothing a client sends
  // after the headers may act as one (a restricted group's key, say).
  bool in_trailer_ = false;
  std::string body_;                 // grows with the bytes received
  size_t announced_ = 0;             // Content-Length; 0 for chunked bodies
  runtime::statistics::byte_ticket ticket_;  // body_'s bytes, from the budget
  bool upgraded_ = false;
  int error_status_ = 0;
  std::string error_message_;
  std::optional<runtime::statistics::request_refusal> refusal_;
};

} // namespace conch::transports::http
