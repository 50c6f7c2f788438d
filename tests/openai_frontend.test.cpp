// The OpenAI frontend over real sockets, in C++ (so the sanitizers see its
// threads): a C++ model that follows the text contract (identity from
// text_input to text_output), a renderer and a token counter of C++ code,
// many chats at once through the render pool, streams, and stops with
// streams open.

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "conch/actors/openai_frontend.hpp"
#include "support/http_fixture.hpp"
#include "support/temp_repository.hpp"

namespace conch::tests {
namespace {

const char* const echo_config = R"(
  backend: "identity"
  max_batch_size: 0
  input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] } ]
  output [ { name: "text_output" data_type: TYPE_STRING dims: [ 1 ] } ]
  instance_group [ { count: 2 kind: KIND_CPU } ]
)";

class openai_frontend_test : public server_fixture {
 protected:
  void SetUp() override {
    repo_.add_model("echo_llm", std::string{"name: \"echo_llm\""} + echo_config);
    auto s = start(options_for(repo_.str()));
    ASSERT_TRUE(s) << s.error().to_string();
    srv_ = *s;
  }

  void TearDown() override { frontend_.reset(); }

  void start_frontend(actors::openai_options o = {}) {
    o.address = "127.0.0.1";
    o.port = 0;
    o.thread_count = 2;
    frontend_ = std::make_unique<actors::openai_frontend>(*srv_, std::move(o));
    auto st = frontend_->start();
    ASSERT_TRUE(st) << st.to_string();
    port_ = frontend_->port();
  }

  std::optional<raw_response> post(const std::string& path, const std::string& body) {
    return http_call(port_, "POST", path, body, "Content-Type: application/json\r\n");
  }

  static rapidjson::Document parse(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    EXPECT_FALSE(d.HasParseError()) << text;
    return d;
  }

  temp_repository repo_;
  std::optional<actors::server> srv_;
  std::unique_ptr<actors::openai_frontend> frontend_;
  uint16_t port_ = 0;
};

TEST_F(openai_frontend_test, a_cpp_model_answers_whole_and_streamed) {
  start_frontend();
  auto whole = post("/v1/completions", R"({"model":"echo_llm","prompt":"hello"})");
  ASSERT_TRUE(whole);
  ASSERT_EQ(whole->status, 200) << whole->body;
  auto d = parse(whole->body);
  EXPECT_STREQ(d["choices"][0]["text"].GetString(), "hello");
  EXPECT_TRUE(d["usage"].IsNull());
  auto streamed =
    post("/v1/completions", R"({"model":"echo_llm","prompt":"hi there","stream":true})");
  ASSERT_TRUE(streamed);
  ASSERT_EQ(streamed->status, 200);
  EXPECT_NE(streamed->body.find(R"("text":"hi there")"), std::string::npos) << streamed->body;
  EXPECT_EQ(streamed->body.rfind("data: [DONE]\n\n"), streamed->body.size() - 14);
}

TEST_F(openai_frontend_test, chats_render_and_count_on_the_render_pool_many_at_once) {
  actors::openai_options o;
  o.chat_template = [](const transports::openai::chat_prompt& chat)
    -> runtime::result<std::string> { return "rendered:" + std::string{chat.messages_json}; };
  o.count_tokens = [](std::string_view text) -> std::optional<int64_t> {
    return static_cast<int64_t>(text.size());
  };
  start_frontend(std::move(o));
  std::atomic<int> good{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t)
    clients.emplace_back([&, t] {
      for (int i = 0; i < 10; ++i) {
        bool stream = (i % 2) == 1;
        auto r = post("/v1/chat/completions",
                      R"({"model":"echo_llm","messages":[{"role":"user","content":"m)"
                        + std::to_string(t) + "\"}]" + (stream ? R"(,"stream":true,)"
                                                                 R"("stream_options":{"include_usage":true})"
                                                               : "")
                        + "}");
        if (r && r->status == 200 && r->body.find("rendered:") != std::string::npos
            && r->body.find("\"total_tokens\"") != std::string::npos)
          ++good;
      }
    });
  for (auto& c : clients)
    c.join();
  EXPECT_EQ(good.load(), 80);
}

TEST_F(openai_frontend_test, the_frontends_own_refusals_are_in_its_shapes) {
  actors::openai_options o;
  o.max_input_size = 256;
  start_frontend(std::move(o));
  auto big = post("/v1/completions", std::string(1000, ' '));
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_NE(big->body.find("content_too_large"), std::string::npos) << big->body;
  auto chat = post("/v1/chat/completions",
                   R"({"model":"echo_llm","messages":[{"role":"user","content":"x"}]})");
  ASSERT_TRUE(chat);
  EXPECT_EQ(chat->status, 400);  // no chat template
  auto unknown = post("/v1/embeddings", R"({"model":"echo_llm","input":"x"})");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 400);
}

TEST_F(openai_frontend_test, a_stop_with_requests_in_flight_answers_or_ends_each) {
  actors::openai_options o;
  o.count_tokens = [](std::string_view text) -> std::optional<int64_t> {
    return static_cast<int64_t>(text.size());
  };
  start_frontend(std::move(o));
  std::atomic<bool> go{true};
  std::atomic<int> served{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t)
    clients.emplace_back([&] {
      while (go.load()) {
        post("/v1/completions",
             R"({"model":"echo_llm","prompt":"p","stream":true,"stream_options":{"include_usage":true}})");
        ++served;
      }
    });
  EXPECT_TRUE(eventually([&] { return served.load() >= 20; }));
  EXPECT_TRUE(frontend_->stop());
  go = false;
  for (auto& c : clients)
    c.join();
  frontend_.reset();  // the handler, its render pool with it
}

} // namespace
} // namespace conch::tests
