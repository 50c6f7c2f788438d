#include "conch/services/tracing/http_post.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace conch::services {

namespace {

// Closes a socket when it goes out of scope.
struct socket_guard {
  int fd = -1;
  ~socket_guard() {
    if (fd >= 0)
      ::close(fd);
  }
};

using clock = std::chrono::steady_clock;

// Waits until `fd` is ready for `events`, at most until `deadline`.
bool wait_for(int fd, short events, clock::time_point deadline) {
  pollfd p{fd, events, 0};
  int n;
  do {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
    n = ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
  } while (n < 0 && errno == EINTR);
  return n > 0 && (p.revents & (events | POLLHUP | POLLERR)) != 0;
}

runtime::status failed(const http_endpoint& to, const std::string& what) {
  return runtime::unavailable("POST to " + to.host + ":" + to.port + to.path + " failed: "
                              + what);
}

// A non-blocking connection to `to`, by `deadline`.
runtime::status connect_to(const http_endpoint& to, clock::time_point deadline,
                           socket_guard& s) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(to.host.c_str(), to.port.c_str(), &hints, &found); rc != 0)
    return failed(to, gai_strerror(rc));
  std::string error = "no address";
  for (auto* a = found; a != nullptr; a = a->ai_next) {
    socket_guard candidate{::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                                    a->ai_protocol)};
    if (candidate.fd < 0)
      continue;
    int rc = ::connect(candidate.fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      if (!wait_for(candidate.fd, POLLOUT, deadline)) {
        error = "connect timed out";
        continue;
      }
      int so_error = 0;
      socklen_t len = sizeof so_error;
      ::getsockopt(candidate.fd, SOL_SOCKET, SO_ERROR, &so_error, &len);
      rc = so_error == 0 ? 0 : -1;
      errno = so_error;
    }
    if (rc == 0) {
      std::swap(s.fd, candidate.fd);
      ::freeaddrinfo(found);
      return runtime::status::ok();
    }
    error = std::strerror(errno);
  }
  ::freeaddrinfo(found);
  return failed(to, error);
}

} // namespace

runtime::result<http_endpoint> parse_http_url(const std::string& url) {
  std::string rest = url;
  if (auto scheme = rest.find("://"); scheme != std::string::npos) {
    if (rest.substr(0, scheme) != "http")
      return runtime::unsupported("only http:// export URLs are supported, got '" + url + "'");
    rest = rest.substr(scheme + 3);
  }
  http_endpoint out;
  auto slash = rest.find('/');
  if (slash != std::string::npos) {
    out.path = rest.substr(slash);
    rest = rest.substr(0, slash);
  }
  auto colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find(']') == std::string::npos) {
    out.port = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  out.host = rest;
  if (out.host.empty() || out.port.empty())
    return runtime::invalid_argument("malformed export URL '" + url + "'");
  return out;
}

runtime::status http_post(const http_endpoint& to, const std::string& content_type,
                          const std::string& body, std::chrono::milliseconds timeout) {
  // One deadline for the whole attempt: a collector that takes the bytes
  // slowly cannot stretch it.
  auto deadline = clock::now() + timeout;
  socket_guard s;
  CONCH_RUNTIME_RETURN_IF_ERROR(connect_to(to, deadline, s));
  std::string head = "POST " + to.path + " HTTP/1.1\r\nHost: " + to.host + ":" + to.port
                     + "\r\nContent-Type: " + content_type
                     + "\r\nContent-Length: " + std::to_string(body.size())
                     + "\r\nConnection: close\r\n\r\n";
  const std::string* parts[] = {&head, &body};
  for (const auto* part : parts) {
    size_t sent = 0;
    while (sent < part->size()) {
      if (!wait_for(s.fd, POLLOUT, deadline))
        return failed(to, "send timed out");
      auto n = ::send(s.fd, part->data() + sent, part->size() - sent, MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (n < 0)
        return failed(to, std::strerror(errno));
      sent += static_cast<size_t>(n);
    }
  }
  // The status line is all that is needed: "HTTP/1.1 200 OK".
  std::string answer;
  char buf[512];
  while (answer.find("\r\n") == std::string::npos && answer.size() < 4096) {
    if (!wait_for(s.fd, POLLIN, deadline))
      return failed(to, "no answer in time");
    auto n = ::recv(s.fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
      continue;
    if (n <= 0)
      return failed(to, n == 0 ? "connection closed without an answer" : std::strerror(errno));
    answer.append(buf, static_cast<size_t>(n));
  }
  auto space = answer.find(' ');
  if (space == std::string::npos || answer.size() < space + 4 || answer[space + 1] != '2')
    return failed(to, "answered '" + answer.substr(0, answer.find("\r\n")) + "'");
  return runtime::status::ok();
}

} // namespace conch::services
