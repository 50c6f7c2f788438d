// Inference over the KServe HTTP frontend: JSON and the binary tensor
// extension on the example models, errors, admission and cancellation.

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "support/gate_backend.hpp"
#include "support/http_fixture.hpp"

namespace conch::tests {
namespace {

using transports::http::test::field;
using transports::http::test::make_request;

rapidjson::Document json_of(const std::string& text) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  EXPECT_FALSE(d.HasParseError()) << text;
  return d;
}

std::string numbers(int n, int base = 0) {
  std::string out;
  for (int i = 0; i < n; ++i)
    out += (i ? "," : "") + std::to_string(base + i);
  return out;
}

class http_infer : public http_fixture {
 protected:
  void SetUp() override { start_all(); }
};

TEST_F(http_infer, json_on_identity_fp32) {
  auto r = call("POST", "/v2/models/identity_fp32/infer",
                R"({"id":"a1","inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32","data":[)"
                  + numbers(16) + "]}]}");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(field(*r, "Content-Type"), "application/json");
  auto d = json_of(r->body);
  EXPECT_STREQ(d["id"].GetString(), "a1");
  EXPECT_STREQ(d["model_name"].GetString(), "identity_fp32");
  EXPECT_STREQ(d["model_version"].GetString(), "1");
  const auto& out = d["outputs"][0];
  EXPECT_STREQ(out["name"].GetString(), "OUTPUT0");
  EXPECT_STREQ(out["datatype"].GetString(), "FP32");
  ASSERT_EQ(out["data"].Size(), 16u);
  for (unsigned i = 0; i < 16; ++i)
    EXPECT_EQ(out["data"][i].GetDouble(), static_cast<double>(i));
}

TEST_F(http_infer, binary_on_identity_fp32) {
  const std::string header =
    R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32",)"
    R"("parameters":{"binary_data_size":64}}],"parameters":{"binary_data_output":true}})";
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i)
    values[i] = 0.5f * static_cast<float>(i);
  std::string blob(reinterpret_cast<const char*>(values.data()), 64);
  auto r = call("POST", "/v2/models/identity_fp32/versions/1/infer", header + blob,
                "Inference-Header-Content-Length: " + std::to_string(header.size()) + "\r\n"
                  + "Content-Type: application/octet-stream\r\n");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(field(*r, "Content-Type"), "application/octet-stream");
  auto json_length = std::stoul(field(*r, "Inference-Header-Content-Length"));
  ASSERT_EQ(r->body.size(), json_length + 64);
  auto d = json_of(r->body.substr(0, json_length));
  EXPECT_EQ(d["outputs"][0]["parameters"]["binary_data_size"].GetInt(), 64);
  EXPECT_EQ(r->body.substr(json_length), blob);
}

TEST_F(http_infer, json_on_simple) {
  auto r = call("POST", "/v2/models/simple/infer",
                R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"INT32","data":[)"
                  + numbers(16, 10)
                  + R"(]},{"name":"INPUT1","shape":[1,16],"datatype":"INT32","data":[)"
                  + numbers(16) + "]}]}");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto d = json_of(r->body);
  ASSERT_EQ(d["outputs"].Size(), 2u);
  for (const auto& out : d["outputs"].GetArray()) {
    bool sum = std::string{out["name"].GetString()} == "OUTPUT0";
    for (unsigned i = 0; i < 16; ++i)
      EXPECT_EQ(out["data"][i].GetInt(), sum ? 10 + 2 * static_cast<int>(i) : 10);
  }
}

TEST_F(http_infer, binary_on_simple_with_one_json_output) {
  std::vector<int32_t> a(16, 7);
  std::vector<int32_t> b(16, 2);
  const std::string header =
    R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"INT32","parameters":{"binary_data_size":64}},)"
    R"({"name":"INPUT1","shape":[1,16],"datatype":"INT32","parameters":{"binary_data_size":64}}],)"
    R"("outputs":[{"name":"OUTPUT0","parameters":{"binary_data":true}},)"
    R"({"name":"OUTPUT1","parameters":{"binary_data":false}}]})";
  std::string body = header + std::string(reinterpret_cast<const char*>(a.data()), 64)
                     + std::string(reinterpret_cast<const char*>(b.data()), 64);
  auto r = call("POST", "/v2/models/simple/infer", body,
                "Inference-Header-Content-Length: " + std::to_string(header.size()) + "\r\n");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto json_length = std::stoul(field(*r, "Inference-Header-Content-Length"));
  ASSERT_EQ(r->body.size(), json_length + 64);
  std::vector<int32_t> sum(16);
  std::memcpy(sum.data(), r->body.data() + json_length, 64);
  EXPECT_EQ(sum, std::vector<int32_t>(16, 9));
  auto d = json_of(r->body.substr(0, json_length));
  EXPECT_EQ(d["outputs"][1]["data"][0].GetInt(), 5);
}

TEST_F(http_infer, decoupled_models_are_refused) {
  auto r = call("POST", "/v2/models/repeat_int32/infer",
                R"({"inputs":[{"name":"IN","shape":[2],"datatype":"INT32","data":[1,2]}]})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 501);
  EXPECT_EQ(r->body,
            R"({"error":"HTTP end point doesn't support models with decoupled transaction policy"})");
}

TEST_F(http_infer, errors) {
  auto unknown = call("POST", "/v2/models/nope/infer", "{}");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_EQ(unknown->body, R"({"error":"Request for unknown model: 'nope' is not found"})");
  auto malformed = call("POST", "/v2/models/identity_fp32/infer", "{\"inputs\":[");
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->status, 400) << malformed->body;
  EXPECT_NE(malformed->body.find("\"error\":"), std::string::npos);
  auto wrong_shape = call("POST", "/v2/models/identity_fp32/infer",
                          R"({"inputs":[{"name":"INPUT0","shape":[1,15],"datatype":"FP32","data":[)"
                            + numbers(15) + "]}]}");
  ASSERT_TRUE(wrong_shape);
  EXPECT_EQ(wrong_shape->status, 400) << wrong_shape->body;
  // The server keeps serving.
  auto live = call("GET", "/v2/health/live");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
}

// A server with a model whose executions wait at a gate, and a frontend
// that admits one waiting request at most.
class http_gated : public http_fixture {
 protected:
  void SetUp() override {
    gate_ = std::make_shared<gate>();
    register_gate_backend("gate_http", gate_);
    repo_.add_model("held", gate_config("held", "gate_http", 0));
    auto http = test_http_options();
    http.max_inflight = 1;
    start_all(options_for(repo_.str()), http);
  }

  void TearDown() override {
    gate_->open();
    http_fixture::TearDown();
  }

  static std::string held_request() {
    return make_request("POST", "/v2/models/held/infer",
                        R"({"inputs":[{"name":"INPUT0","shape":[4],"datatype":"FP32",)"
                        R"("data":[1,2,3,4]}]})");
  }

  std::shared_ptr<gate> gate_;
  temp_repository repo_;
};

TEST_F(http_gated, beyond_max_inflight_requests_get_503) {
  raw_client first{port_};
  ASSERT_TRUE(first.send(held_request()));
  ASSERT_TRUE(gate_->wait_entered(1));
  raw_client second{port_};
  ASSERT_TRUE(second.send(held_request()));
  auto busy = second.read_response();
  ASSERT_TRUE(busy);
  EXPECT_EQ(busy->status, 503);
  EXPECT_EQ(busy->body, R"({"error":"the server is busy: too many requests in flight"})");
  // Requests that do not wait on the server are not counted.
  auto live = call("GET", "/v2/health/live");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
  gate_->open();
  auto done = first.read_response();
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, 200) << done->body;
  // The place is free again.
  raw_client third{port_};
  ASSERT_TRUE(third.send(held_request()));
  auto again = third.read_response();
  ASSERT_TRUE(again);
  EXPECT_EQ(again->status, 200) << again->body;
}

TEST_F(http_gated, a_client_that_leaves_cancels_its_request) {
  {
    raw_client c{port_};
    ASSERT_TRUE(c.send(held_request()));
    ASSERT_TRUE(gate_->wait_entered(1));
  }
  // The gate lets a cancelled execution go at once; unanswered, it would
  // hold it for 20 seconds and then succeed.
  EXPECT_TRUE(eventually([&] {
    auto stats = srv_->model_statistics("held");
    return stats && !stats->empty() && (*stats)[0].fail.count == 1;
  }));
  auto stats = srv_->model_statistics("held");
  ASSERT_TRUE(stats);
  EXPECT_EQ((*stats)[0].success.count, 0u);
}

} // namespace
} // namespace conch::tests
