// Stops that race: the server's stop from two threads, and a frontend's stop
// against the server's, in every order. None may fail because another stop
// is running; each returns once the stop it shares is done.

#include <atomic>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "support/http_fixture.hpp"

namespace conch::tests {
namespace {

// Runs `a` and `b` on two threads released at the same moment.
template <class A, class B>
void race(A&& a, B&& b) {
  std::atomic<int> ready{0};
  auto start = [&ready] {
    ready.fetch_add(1);
    while (ready.load() < 2)
      std::this_thread::yield();
  };
  std::thread other{[&] {
    start();
    b();
  }};
  start();
  a();
  other.join();
}

class stop_races : public server_fixture {};

TEST_F(stop_races, two_threads_stopping_the_server_both_succeed) {
  for (int i = 0; i < 100; ++i) {
    auto srv = start(example_options());
    ASSERT_TRUE(srv) << srv.error().to_string();
    runtime::status first;
    runtime::status second;
    race([&] { first = srv->stop(); }, [&] { second = srv->stop(); });
    ASSERT_TRUE(first.is_ok()) << "round " << i << ": " << first.to_string();
    ASSERT_TRUE(second.is_ok()) << "round " << i << ": " << second.to_string();
    EXPECT_FALSE(srv->live());
  }
}

TEST_F(stop_races, a_frontend_stop_racing_with_the_server_stop_never_fails) {
  for (int i = 0; i < 100; ++i) {
    auto srv = start(example_options());
    ASSERT_TRUE(srv) << srv.error().to_string();
    auto http = std::make_unique<actors::http_frontend>(*srv, test_http_options());
    ASSERT_TRUE(http->start());
    auto port = http->port();
    runtime::status frontend;
    runtime::status server;
    race([&] { frontend = http->stop(); }, [&] { server = srv->stop(); });
    ASSERT_TRUE(frontend.is_ok()) << "round " << i << ": " << frontend.to_string();
    ASSERT_TRUE(server.is_ok()) << "round " << i << ": " << server.to_string();
    // Stopped either way: the port is closed.
    EXPECT_FALSE(raw_client{port}.connected());
  }
}

TEST_F(stop_races, two_threads_stopping_one_frontend_both_succeed) {
  auto srv = start(example_options());
  ASSERT_TRUE(srv) << srv.error().to_string();
  for (int i = 0; i < 100; ++i) {
    actors::http_frontend http{*srv, test_http_options()};
    ASSERT_TRUE(http.start());
    runtime::status first;
    runtime::status second;
    race([&] { first = http.stop(); }, [&] { second = http.stop(); });
    // One stops it; the other waits for that stop, or comes after it and
    // finds the frontend not running, as a stop after a stop does.
    auto acceptable = [](const runtime::status& st) {
      return st.is_ok() || st.message() == "HTTP server is not running.";
    };
    EXPECT_TRUE(acceptable(first)) << first.to_string();
    EXPECT_TRUE(acceptable(second)) << second.to_string();
    EXPECT_TRUE(first.is_ok() || second.is_ok());
  }
  EXPECT_TRUE(srv->stop().is_ok());
}

} // namespace
} // namespace conch::tests
