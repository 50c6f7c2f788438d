// SIGPIPE: a client that goes away while its response is written must not
// end the process. Each test runs in a process of its own (ctest), so the
// disposition each one starts from is the default.
#include <gtest/gtest.h>

#include <csignal>

#include "conch/transports/http/server.hpp"
#include "conch/transports/http/test/raw_client.hpp"
#include "conch/transports/http/test/test_handler.hpp"

namespace conch::transports::http {
namespace {

using test::make_request;
using test::raw_client;

sighandler_t sigpipe_disposition() {
  struct sigaction current {};
  ::sigaction(SIGPIPE, nullptr, &current);
  return current.sa_handler;
}

void own_handler(int) {}

TEST(server_signals, a_start_ignores_sigpipe_and_clients_gone_mid_response_are_dropped) {
  ASSERT_EQ(sigpipe_disposition(), SIG_DFL);
  auto handler = std::make_shared<test::test_handler>();
  auto s = test::start_server(handler);
  EXPECT_EQ(sigpipe_disposition(), SIG_IGN);
  for (int i = 0; i < 3; ++i) {
    raw_client gone{s->bound_port()};
    ASSERT_TRUE(gone.send(make_request("GET", "/bytes/67108864")));
    ASSERT_TRUE(gone.wait_for("HTTP/1.1 200"));
    gone.close();  // unread data: the kernel resets the connection
  }
  // Still serving (a SIGPIPE would have killed the test by now).
  raw_client client{s->bound_port()};
  ASSERT_TRUE(client.send(make_request("GET", "/bytes/10")));
  auto resp = client.read_response();
  ASSERT_TRUE(resp.has_value());
  EXPECT_EQ(resp->status, 200);
  EXPECT_TRUE(test::stop_and_wait(*s));
}

TEST(server_signals, a_disposition_the_program_chose_is_kept) {
  std::signal(SIGPIPE, own_handler);
  auto s = test::start_server(std::make_shared<test::test_handler>());
  EXPECT_EQ(sigpipe_disposition(), &own_handler);
  EXPECT_TRUE(test::stop_and_wait(*s));
  std::signal(SIGPIPE, SIG_DFL);
}

} // namespace
} // namespace conch::transports::http
