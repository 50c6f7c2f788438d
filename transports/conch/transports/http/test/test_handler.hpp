#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

#include "conch/transports/http/handler.hpp"
#include "conch/transports/http/server.hpp"

namespace conch::transports::http::test {

/// A request the test handler kept to answer later, from the test thread.
struct held_request {
  request_ptr req;
  responder res;
};

/// The handler the transport tests run against. Routes by the first path
/// segment:
///   /echo      200, body = request body; X-Method, X-Segments (joined by
///              '|'), X-Keep-Alive and X-Content-Encoding describe the request
///   /bytes/N   200, a body of N bytes
///   /drop      drops the responder unanswered (the transport answers 500)
///   /compress  200, a repetitive text body compressed for Accept-Encoding
///   /hold      kept for the test (take_held), with a cancel hook counted by
///              wait_cancelled
class test_handler : public handler {
 public:
  void handle(request_ptr req, responder res) override;

  /// Waits until `n` held requests are waiting and takes them, oldest first;
  /// fewer if the deadline passes.
  std::vector<held_request> take_held(size_t n);

  /// Waits until at least `n` cancel hooks have run; false at the deadline.
  bool wait_cancelled(int n);

  /// Cancel hooks run so far.
  int cancelled() const;

  /// The body /compress answers with.
  static std::string compress_body();

 private:
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<held_request> held_;  // guarded by mutex_
  int cancelled_ = 0;               // guarded by mutex_
};

/// How long any wait in these tests may take before it fails.
inline constexpr std::chrono::seconds test_deadline{20};

/// Options for a test server: loopback, port 0, two loops.
server_options test_options();

/// A started server over `h`; a failed start fails the test.
std::unique_ptr<server> start_server(std::shared_ptr<handler> h,
                                     server_options options = test_options());

/// Calls begin_stop and waits for drained; false at the deadline.
bool stop_and_wait(server& s);

} // namespace conch::transports::http::test
