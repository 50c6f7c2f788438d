// The KServe v2 HTTP endpoints other than inference, over real sockets:
// status codes and bodies as spec kserve-protocol.md §1 gives them.

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "support/http_fixture.hpp"

namespace conch::tests {
namespace {

using transports::http::test::field;

rapidjson::Document json_of(const raw_response& r) {
  rapidjson::Document d;
  d.Parse(r.body.c_str(), r.body.size());
  EXPECT_FALSE(d.HasParseError()) << r.body;
  return d;
}

class http_endpoints : public http_fixture {
 protected:
  void SetUp() override { start_all(); }

  // Expects `status` and exactly `body`.
  void expect(const std::string& method, const std::string& target, int status,
              const std::string& body, const std::string& request_body = {}) {
    auto r = call(method, target, request_body);
    ASSERT_TRUE(r) << method << " " << target << ": no answer";
    EXPECT_EQ(r->status, status) << method << " " << target << ": " << r->body;
    EXPECT_EQ(r->body, body) << method << " " << target;
    if (!body.empty()) {
      EXPECT_EQ(field(*r, "Content-Type"), "application/json");
    }
  }
};

TEST_F(http_endpoints, health) {
  expect("GET", "/v2/health/live", 200, "");
  expect("GET", "/v2/health/ready", 200, "");
  expect("GET", "/v2/health/ready?probe=1", 200, "");
  auto r = call("GET", "/v2/health/live");
  ASSERT_TRUE(r);
  EXPECT_EQ(field(*r, "Content-Type"), "<missing>");
}

TEST_F(http_endpoints, server_metadata_lists_what_conch_implements) {
  auto r = call("GET", "/v2");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto d = json_of(*r);
  EXPECT_STREQ(d["name"].GetString(), "triton");
  EXPECT_TRUE(d["version"].IsString());
  std::vector<std::string> ext;
  for (const auto& e : d["extensions"].GetArray())
    ext.emplace_back(e.GetString());
  EXPECT_EQ(ext, (std::vector<std::string>{"classification", "model_repository",
                                           "model_repository(unload_dependents)",
                                           "schedule_policy", "model_configuration",
                                           "system_shared_memory", "binary_tensor_data", "parameters", "statistics",
                                           "logging"}));
}

TEST_F(http_endpoints, model_metadata) {
  const std::string identity =
    R"({"name":"identity_fp32","versions":["1"],"platform":"identity",)"
    R"("inputs":[{"name":"INPUT0","datatype":"FP32","shape":[-1,16]}],)"
    R"("outputs":[{"name":"OUTPUT0","datatype":"FP32","shape":[-1,16]}]})";
  expect("GET", "/v2/models/identity_fp32", 200, identity);
  expect("GET", "/v2/models/identity_fp32/versions/1", 200, identity);
  expect("GET", "/v2/models/identity%5Ffp32", 200, identity);
  expect("GET", "/v2/models/repeat_int32", 200,
         R"({"name":"repeat_int32","versions":["1"],"platform":"repeat",)"
         R"("inputs":[{"name":"IN","datatype":"INT32","shape":[-1]}],)"
         R"("outputs":[{"name":"OUT","datatype":"INT32","shape":[1]},)"
         R"({"name":"IDX","datatype":"UINT32","shape":[1]}]})");
  expect("GET", "/v2/models/nope", 404,
         R"({"error":"Request for unknown model: 'nope' is not found"})");
  expect("GET", "/v2/models/identity_fp32/versions/9", 404,
         R"({"error":"Request for unknown model: 'identity_fp32' version 9 is not found"})");
}

TEST_F(http_endpoints, model_ready) {
  expect("GET", "/v2/models/simple/ready", 200, "");
  expect("GET", "/v2/models/simple/versions/1/ready", 200, "");
  expect("GET", "/v2/models/nope/ready", 404,
         R"({"error":"Request for unknown model: 'nope' is not found"})");
}

TEST_F(http_endpoints, model_config) {
  for (auto target : {"/v2/models/identity_fp32/config", "/v2/models/identity_fp32/versions/1/config"}) {
    auto r = call("GET", target);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    auto d = json_of(*r);
    EXPECT_STREQ(d["name"].GetString(), "identity_fp32");
    EXPECT_EQ(d["max_batch_size"].GetInt(), 64);
    EXPECT_STREQ(d["input"][0]["data_type"].GetString(), "TYPE_FP32");
    EXPECT_EQ(d["input"][0]["dims"][0].GetInt(), 16);
  }
  expect("GET", "/v2/models/nope/config", 404,
         R"({"error":"Request for unknown model: 'nope' is not found"})");
}

TEST_F(http_endpoints, statistics) {
  auto all = call("GET", "/v2/models/stats");
  ASSERT_TRUE(all);
  ASSERT_EQ(all->status, 200) << all->body;
  auto d = json_of(*all);
  ASSERT_EQ(d["model_stats"].Size(), 3u);
  auto one = call("GET", "/v2/models/simple/versions/1/stats");
  ASSERT_TRUE(one);
  ASSERT_EQ(one->status, 200) << one->body;
  auto s = json_of(*one);
  ASSERT_EQ(s["model_stats"].Size(), 1u);
  EXPECT_STREQ(s["model_stats"][0]["name"].GetString(), "simple");
  EXPECT_STREQ(s["model_stats"][0]["version"].GetString(), "1");
  EXPECT_TRUE(s["model_stats"][0]["inference_stats"]["queue"]["count"].IsUint64());
  expect("GET", "/v2/models/nope/stats", 400,
         R"({"error":"requested model 'nope' is not available"})");
}

TEST_F(http_endpoints, repository_index) {
  for (std::string body : {"", "{}", R"({"ready":false})"}) {
    auto r = call("POST", "/v2/repository/index", body);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    auto d = json_of(*r);
    ASSERT_TRUE(d.IsArray());
    bool found = false;
    for (const auto& e : d.GetArray())
      if (std::string{e["name"].GetString()} == "identity_fp32") {
        found = true;
        EXPECT_STREQ(e["version"].GetString(), "1");
        EXPECT_STREQ(e["state"].GetString(), "READY");
        EXPECT_FALSE(e.HasMember("reason"));
      }
    EXPECT_TRUE(found) << r->body;
  }
  auto ready = call("POST", "/v2/repository/index", R"({"ready":true})");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  expect("POST", "/v2/repository/index", 400, R"({"error":"'ready' must be a boolean"})",
         R"({"ready":"yes"})");
  expect("POST", "/v2/repository/other/index", 501,
         R"({"error":"'repository_name' specification is not supported"})");
}

TEST_F(http_endpoints, unload_and_load) {
  expect("POST", "/v2/repository/models/simple/unload", 200, "",
         R"({"parameters":{"unload_dependents":false}})");
  expect("GET", "/v2/models/simple/ready", 400, R"({"error":"Model version not ready"})");
  auto index = call("POST", "/v2/repository/index");
  ASSERT_TRUE(index);
  EXPECT_NE(index->body.find(R"("name":"simple","version":"1","state":"UNAVAILABLE")"),
            std::string::npos)
    << index->body;
  expect("POST", "/v2/repository/models/simple/load", 200, "");
  expect("GET", "/v2/models/simple/ready", 200, "");
  auto missing = call("POST", "/v2/repository/models/nope/load");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 500) << missing->body;
  EXPECT_NE(missing->body.find("\"error\":"), std::string::npos);
  expect("POST", "/v2/repository/other/models/simple/load", 501,
         R"({"error":"'repository_name' specification is not supported"})");
}

TEST_F(http_endpoints, load_with_a_config_override) {
  const std::string config =
    R"({\"name\":\"identity_fp32\",\"backend\":\"identity\",\"max_batch_size\":4,)"
    R"(\"input\":[{\"name\":\"INPUT0\",\"data_type\":\"TYPE_FP32\",\"dims\":[16]}],)"
    R"(\"output\":[{\"name\":\"OUTPUT0\",\"data_type\":\"TYPE_FP32\",\"dims\":[16]}]})";
  expect("POST", "/v2/repository/models/identity_fp32/load", 200, "",
         R"({"parameters":{"config":")" + config + R"("}})");
  auto r = call("GET", "/v2/models/identity_fp32/config");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(json_of(*r)["max_batch_size"].GetInt(), 4);
}

TEST_F(http_endpoints, load_with_file_overrides) {
  const std::string config =
    R"({\"backend\":\"identity\",\"max_batch_size\":0,)"
    R"(\"input\":[{\"name\":\"INPUT0\",\"data_type\":\"TYPE_INT32\",\"dims\":[2]}],)"
    R"(\"output\":[{\"name\":\"OUTPUT0\",\"data_type\":\"TYPE_INT32\",\"dims\":[2]}]})";
  // "aGVsbG8=" is "hello".
  expect("POST", "/v2/repository/models/from_files/load", 200, "",
         R"({"parameters":{"config":")" + config + R"(","file:1/notes.txt":"aGVsbG8="}})");
  expect("GET", "/v2/models/from_files/ready", 200, "");
  auto bad = call("POST", "/v2/repository/models/from_files/load",
                  R"({"parameters":{"config":")" + config + R"(","file:1/x":"***"}})");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400) << bad->body;
  EXPECT_NE(bad->body.find("file:1/x"), std::string::npos) << bad->body;
}

TEST_F(http_endpoints, logging) {
  const std::string defaults = R"({"log_file":"","log_info":true,"log_warning":true,)"
                               R"("log_error":true,"log_verbose_level":0,"log_format":"default"})";
  expect("GET", "/v2/logging", 200, defaults);
  expect("POST", "/v2/logging", 200,
         R"({"log_file":"","log_info":false,"log_warning":true,)"
         R"("log_error":true,"log_verbose_level":1,"log_format":"ISO8601"})",
         R"({"log_info":false,"log_verbose_level":1,"log_format":"ISO8601","log_error":null})");
  expect("POST", "/v2/logging", 501,
         R"({"error":"log file location can not be updated through network protocol"})",
         R"({"log_file":"/tmp/x.log"})");
  expect("POST", "/v2/logging", 400, R"({"error":"expect boolean for 'log_info'"})",
         R"({"log_info":"no"})");
  auto bad_format = call("POST", "/v2/logging", R"({"log_format":"json"})");
  ASSERT_TRUE(bad_format);
  EXPECT_EQ(bad_format->status, 400);
  auto now = call("GET", "/v2/logging");
  ASSERT_TRUE(now);
  EXPECT_NE(now->body.find(R"("log_verbose_level":1)"), std::string::npos) << now->body;
}

TEST_F(http_endpoints, trace_settings_read_change_and_refuse_as_tritons_do) {
  const std::string off = R"({"trace_level":["OFF"],"trace_rate":"1000","trace_count":"-1",)"
                          R"("log_frequency":"0","trace_file":"","trace_mode":"triton"})";
  expect("GET", "/v2/trace/setting", 200, off);
  expect("GET", "/v2/models/simple/trace/setting", 200, off);
  expect("POST", "/v2/models/simple/trace/setting", 200,
         R"({"trace_level":["OFF"],"trace_rate":"7","trace_count":"-1",)"
         R"("log_frequency":"0","trace_file":"","trace_mode":"triton"})",
         R"({"trace_rate":"7"})");
  expect("GET", "/v2/trace/setting", 200, off);
  expect("POST", "/v2/trace/setting", 501,
         R"({"error":"trace file location can not be updated through network protocol"})",
         R"({"trace_file":"x.json"})");
  expect("POST", "/v2/trace/setting", 400,
         R"({"error":"Attempting to set invalid trace setting :trace file name is not given"})",
         R"({"trace_level":["TIMESTAMPS"]})");
  expect("GET", "/v2/models/nope/trace/setting", 400,
         R"({"error":"Request for unknown model : nope"})");
}

TEST_F(http_endpoints, unknown_paths_get_404) {
  const std::string body = R"({"error":"Not Found"})";
  expect("GET", "/", 404, body);
  expect("GET", "/v2/", 404, body);
  expect("GET", "/v1/models/simple", 404, body);
  expect("GET", "/v2/models/simple/versions/1/trace/setting", 404, body);
  expect("POST", "/v2/models/simple/explain", 404, body, "{}");
  expect("GET", "/v2/health", 404, body);
}

TEST_F(http_endpoints, wrong_methods_get_405) {
  const std::string body = R"({"error":"Method Not Allowed"})";
  expect("POST", "/v2/health/live", 405, body);
  expect("POST", "/v2", 405, body);
  expect("GET", "/v2/models/simple/infer", 405, body);
  expect("DELETE", "/v2/models/simple", 405, body);
  expect("PUT", "/v2/logging", 405, body);
  expect("GET", "/v2/repository/index", 405, body);
  expect("POST", "/v2/models/stats", 405, body);
  expect("GET", "/v2/systemsharedmemory/region/r/register", 405, body);
}

// A megabyte of unclosed `[` or `{"a":` once overflowed the stack of the
// recursive JSON parser on every route that reads a JSON body; each now
// answers 400 naming the nesting limit, and the server keeps serving.
TEST_F(http_endpoints, json_depth_bombs_get_400_and_the_server_keeps_serving) {
  const std::vector<std::string> targets = {
    "/v2/repository/index",
    "/v2/logging",
    "/v2/trace/setting",
    "/v2/models/simple/trace/setting",
    "/v2/systemsharedmemory/region/x/register",
    "/v2/models/identity_fp32/generate",
    "/v2/models/identity_fp32/generate_stream",
    "/v2/models/identity_fp32/infer",
  };
  for (const std::string unit : {"[", "{\"a\":"}) {
    std::string bomb;
    while (bomb.size() < (1u << 20))
      bomb += unit;
    for (const auto& target : targets) {
      auto r = call("POST", target, bomb);
      ASSERT_TRUE(r) << target << ": no answer";
      EXPECT_EQ(r->status, 400) << target << ": " << r->body;
      EXPECT_NE(r->body.find("limit of 100 levels"), std::string::npos) << target << ": "
                                                                        << r->body;
    }
    // Load and unload may refuse before reading the body (control mode none),
    // but never crash.
    for (const std::string target :
         {"/v2/repository/models/simple/load", "/v2/repository/models/simple/unload"}) {
      auto r = call("POST", target, bomb);
      ASSERT_TRUE(r) << target << ": no answer";
      EXPECT_GE(r->status, 400) << target;
      EXPECT_LT(r->status, 500) << target << ": " << r->body;
    }
  }
  expect("GET", "/v2/health/ready", 200, "");
}

} // namespace
} // namespace conch::tests
