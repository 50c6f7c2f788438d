#include "conch/transports/http/listener.hpp"

#include <cstring>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace conch::transports::http {

namespace {

std::string describe(const sockaddr_storage& addr) {
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (addr.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    uv_ip6_name(a, host, sizeof host);
    port = ntohs(a->sin6_port);
    return std::string{"["} + host + "]:" + std::to_string(port);
  }
  auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
  uv_ip4_name(a, host, sizeof host);
  port = ntohs(a->sin_port);
  return std::string{host} + ":" + std::to_string(port);
}

runtime::status listen_error(const sockaddr_storage& addr, int rc) {
  auto where = describe(addr);
  if (rc == UV_EADDRINUSE)
    return runtime::unavailable("cannot listen on " + where + ": address already in use");
  if (rc == UV_EACCES)
    return runtime::unavailable("cannot listen on " + where + ": permission denied");
  if (rc == UV_EADDRNOTAVAIL)
    return runtime::invalid_argument("cannot listen on " + where
                                     + ": address not available on this host");
  return runtime::unavailable("cannot listen on " + where + ": " + uv_strerror(rc));
}

} // namespace

runtime::result<sockaddr_storage> resolve_address(const std::string& address, uint16_t port) {
  sockaddr_storage out{};
  if (uv_ip4_addr(address.c_str(), port, reinterpret_cast<sockaddr_in*>(&out)) == 0)
    return out;
  out = {};
  if (uv_ip6_addr(address.c_str(), port, reinterpret_cast<sockaddr_in6*>(&out)) == 0)
    return out;
  return runtime::invalid_argument("address '" + address
                                   + "' is not an IPv4 or IPv6 address literal");
}

runtime::status open_listener(uv_loop_t* loop, uv_tcp_t* tcp, const sockaddr_storage& addr,
                              bool reuse_port, int backlog, uv_connection_cb on_connection,
                              bool& initialised) {
  // Create the socket first so that SO_REUSEPORT can be set before bind
  // (libuv 1.44 has no flag for it).
  initialised = false;
  if (int rc = uv_tcp_init_ex(loop, tcp, addr.ss_family); rc < 0)
    return runtime::internal_error(std::string{"cannot create a socket: "} + uv_strerror(rc));
  initialised = true;
  if (reuse_port) {
    uv_os_fd_t fd;
    int one = 1;
    if (uv_fileno(reinterpret_cast<uv_handle_t*>(tcp), &fd) != 0
        || setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0)
      return runtime::internal_error(std::string{"cannot set SO_REUSEPORT: "} + std::strerror(errno));
  }
  auto* sa = reinterpret_cast<const sockaddr*>(&addr);
  if (int rc = uv_tcp_bind(tcp, sa, 0); rc < 0)
    return listen_error(addr, rc);
  // libuv reports some bind errors (EADDRINUSE) only here.
  if (int rc = uv_listen(reinterpret_cast<uv_stream_t*>(tcp), backlog, on_connection); rc < 0)
    return listen_error(addr, rc);
  return runtime::status::ok();
}

runtime::status share_listener(uv_loop_t* loop, uv_tcp_t* tcp, const uv_tcp_t& shared,
                               int backlog, uv_connection_cb on_connection, bool& initialised) {
  initialised = false;
  uv_os_fd_t fd;
  if (uv_fileno(reinterpret_cast<const uv_handle_t*>(&shared), &fd) != 0)
    return runtime::internal_error("the shared listening socket is not open");
  int copy = dup(fd);
  if (copy < 0)
    return runtime::internal_error(std::string{"cannot share the listening socket: "}
                                   + std::strerror(errno));
  uv_tcp_init(loop, tcp);
  initialised = true;
  if (int rc = uv_tcp_open(tcp, copy); rc < 0) {
    close(copy);
    return runtime::internal_error(std::string{"cannot share the listening socket: "}
                                   + uv_strerror(rc));
  }
  if (int rc = uv_listen(reinterpret_cast<uv_stream_t*>(tcp), backlog, on_connection); rc < 0)
    return runtime::internal_error(std::string{"cannot listen on the shared socket: "}
                                   + uv_strerror(rc));
  return runtime::status::ok();
}

uint16_t local_port(const uv_tcp_t& tcp) {
  sockaddr_storage addr{};
  int len = sizeof addr;
  if (uv_tcp_getsockname(&tcp, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
    return 0;
  if (addr.ss_family == AF_INET6)
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  return ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
}

} // namespace conch::transports::http
