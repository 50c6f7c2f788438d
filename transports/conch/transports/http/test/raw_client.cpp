#include "conch/transports/http/test/raw_client.hpp"

#include <cerrno>
#include <cstdlib>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

namespace conch::transports::http::test {

raw_client::raw_client(uint16_t port, std::chrono::milliseconds timeout) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return;
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return;
  }
  fd_ = fd;
}

raw_client::~raw_client() {
  close();
}

void raw_client::close() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
}

bool raw_client::send(const std::string& bytes) {
  size_t sent = 0;
  while (fd_ >= 0 && sent < bytes.size()) {
    auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n <= 0)
      return false;
    sent += static_cast<size_t>(n);
  }
  return fd_ >= 0;
}

bool raw_client::fill() {
  if (fd_ < 0 || closed_)
    return false;
  char chunk[16384];
  auto n = ::recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) {
    // 0 is the server's FIN; ECONNRESET a reset; EAGAIN the timeout.
    if (n == 0 || errno == ECONNRESET)
      closed_ = true;
    return false;
  }
  buffer_.append(chunk, static_cast<size_t>(n));
  return true;
}

std::optional<std::string> raw_client::take_line() {
  for (;;) {
    auto end = buffer_.find("\r\n");
    if (end != std::string::npos) {
      auto line = buffer_.substr(0, end);
      buffer_.erase(0, end + 2);
      return line;
    }
    if (!fill())
      return std::nullopt;
  }
}

bool raw_client::take_exact(size_t n, std::string& out) {
  while (buffer_.size() < n)
    if (!fill())
      return false;
  out.append(buffer_, 0, n);
  buffer_.erase(0, n);
  return true;
}

bool raw_client::read_chunked(std::string& out) {
  for (;;) {
    auto size_line = take_line();
    if (!size_line)
      return false;
    auto size = std::strtoul(size_line->c_str(), nullptr, 16);
    if (size == 0)
      return take_line().has_value();  // the empty line after the last chunk
    std::string crlf;
    if (!take_exact(size, out) || !take_exact(2, crlf) || crlf != "\r\n")
      return false;
  }
}

std::optional<raw_response> raw_client::read_response() {
  auto status_line = take_line();
  if (!status_line || status_line->size() < 12)
    return std::nullopt;
  raw_response out;
  out.version = status_line->substr(0, 8);
  out.status = std::atoi(status_line->c_str() + 9);
  for (;;) {
    auto line = take_line();
    if (!line)
      return std::nullopt;
    if (line->empty())
      break;
    auto colon = line->find(':');
    if (colon == std::string::npos)
      return std::nullopt;
    out.headers.add(line->substr(0, colon), std::string{trim(line->substr(colon + 1))});
  }
  if (out.status == 100)
    return out;
  if (out.headers.has_token("Transfer-Encoding", "chunked")) {
    out.chunked = true;
    if (!read_chunked(out.body))
      return std::nullopt;
  } else if (auto* length = out.headers.find("Content-Length")) {
    if (!take_exact(std::strtoul(length->c_str(), nullptr, 10), out.body))
      return std::nullopt;
  } else {
    while (fill()) {
    }
    out.body.swap(buffer_);
  }
  return out;
}

bool raw_client::wait_for(const std::string& text) {
  while (buffer_.find(text) == std::string::npos)
    if (!fill())
      return false;
  return true;
}

bool raw_client::wait_closed() {
  while (fill()) {
  }
  return closed_;
}

std::string field(const raw_response& resp, const std::string& name) {
  auto* value = resp.headers.find(name);
  return value != nullptr ? *value : "<missing>";
}

std::string make_request(const std::string& method, const std::string& target,
                         const std::string& body, const std::string& extra_headers) {
  std::string out = method + " " + target + " HTTP/1.1\r\nHost: test\r\n" + extra_headers;
  if (!body.empty() || method == "POST")
    out += "Content-Length: " + std::to_string(body.size()) + "\r\n";
  out += "\r\n";
  out += body;
  return out;
}

} // namespace conch::transports::http::test
