#include "conch/transports/http/test/test_handler.hpp"

#include <future>

#include <gtest/gtest.h>

#include "conch/transports/http/compression.hpp"

namespace conch::transports::http::test {

void test_handler::handle(request_ptr req, responder res) {
  auto first = req->segments.empty() ? std::string{} : req->segments.front();
  if (first == "echo") {
    response out{200};
    out.headers.set("X-Method", req->method);
    std::string joined;
    for (auto& s : req->segments)
      joined += (joined.empty() ? "" : "|") + s;
    out.headers.set("X-Segments", joined);
    out.headers.set("X-Keep-Alive", req->keep_alive ? "1" : "0");
    if (auto* coding = req->headers.find("content-encoding"))
      out.headers.set("X-Content-Encoding", *coding);
    if (!req->body.empty())
      out.body.push_back(req->body);  // the body buffer itself, not a copy
    res.send(std::move(out));
  } else if (first == "bytes" && req->segments.size() > 1) {
    res.send(response::text(200, std::string(std::stoul(req->segments[1]), 'x')));
  } else if (first == "drop") {
    return;
  } else if (first == "compress") {
    auto out = response::text(200, compress_body());
    compress_for(*req, out);
    res.send(std::move(out));
  } else if (first == "hold") {
    req->on_cancel([this] {
      std::lock_guard<std::mutex> guard{mutex_};
      ++cancelled_;
      changed_.notify_all();
    });
    std::lock_guard<std::mutex> guard{mutex_};
    held_.push_back(held_request{std::move(req), std::move(res)});
    changed_.notify_all();
  } else {
    res.send(response::error(404, "Not Found"));
  }
}

std::vector<held_request> test_handler::take_held(size_t n) {
  std::unique_lock<std::mutex> lock{mutex_};
  changed_.wait_for(lock, test_deadline, [&] { return held_.size() >= n; });
  std::vector<held_request> out;
  out.swap(held_);
  return out;
}

bool test_handler::wait_cancelled(int n) {
  std::unique_lock<std::mutex> lock{mutex_};
  return changed_.wait_for(lock, test_deadline, [&] { return cancelled_ >= n; });
}

int test_handler::cancelled() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return cancelled_;
}

std::string test_handler::compress_body() {
  std::string out;
  for (int i = 0; i < 200; ++i)
    out += "conch compresses this line again and again\n";
  return out;
}

server_options test_options() {
  server_options opts;
  opts.address = "127.0.0.1";
  opts.port = 0;
  opts.thread_count = 2;
  return opts;
}

std::unique_ptr<server> start_server(std::shared_ptr<handler> h, server_options options) {
  auto s = std::make_unique<server>(std::move(options), std::move(h));
  auto st = s->start();
  EXPECT_TRUE(st.is_ok()) << st.to_string();
  EXPECT_NE(s->bound_port(), 0);
  return s;
}

bool stop_and_wait(server& s) {
  auto done = std::make_shared<std::promise<void>>();
  auto fired = done->get_future();
  s.begin_stop([done] { done->set_value(); });
  return fired.wait_for(test_deadline) == std::future_status::ready;
}

} // namespace conch::transports::http::test
