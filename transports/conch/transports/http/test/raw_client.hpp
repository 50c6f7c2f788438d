#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "conch/transports/http/header_map.hpp"

namespace conch::transports::http::test {

/// A response as read off the wire by raw_client.
struct raw_response {
  std::string version;   // "HTTP/1.1"
  int status = 0;
  header_map headers;
  std::string body;      // chunked coding removed
  bool chunked = false;
};

/// A blocking TCP client that speaks HTTP by hand, for tests. Every read
/// waits at most `timeout` (then fails the read), so no test can hang.
class raw_client {
 public:
  explicit raw_client(uint16_t port, std::chrono::milliseconds timeout = std::chrono::seconds{20});
  raw_client(const raw_client&) = delete;
  raw_client& operator=(const raw_client&) = delete;
  ~raw_client();

  /// True when the connection was established.
  bool connected() const noexcept { return fd_ >= 0; }

  /// Sends all of `bytes`; false on error.
  bool send(const std::string& bytes);

  /// Reads one response (an interim 100 counts as one); nullopt on timeout,
  /// close or garbage.
  std::optional<raw_response> read_response();

  /// Reads until `text` has arrived (kept for later reads); false on timeout
  /// or close.
  bool wait_for(const std::string& text);

  /// Waits until the server closes the connection; true if it did (FIN or
  /// reset) before the timeout. Data that arrives meanwhile is kept.
  bool wait_closed();

  /// Closes the socket now.
  void close();

  /// Everything received and not yet consumed by read_response.
  const std::string& unread() const noexcept { return buffer_; }

 private:
  bool fill();  // one recv into buffer_; false on close, error or timeout
  std::optional<std::string> take_line();
  bool take_exact(size_t n, std::string& out);
  bool read_chunked(std::string& out);

  int fd_ = -1;
  bool closed_ = false;
  std::string buffer_;
};

/// The value of header `name` in `resp`, or "<missing>".
std::string field(const raw_response& resp, const std::string& name);

/// A request line plus headers plus Content-Length body, as bytes.
std::string make_request(const std::string& method, const std::string& target,
                         const std::string& body = {}, const std::string& extra_headers = {});

} // namespace conch::transports::http::test
