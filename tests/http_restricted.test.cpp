// Restricted endpoint groups over the HTTP frontends (KServe's, SageMaker's,
// Vertex AI's): a request to a restricted group without the group's header
// and value gets 403, whichever route reaches the group. And client shared
// memory, denied unless a frontend allows it.

#include <memory>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "conch/runtime/test/fake_device_memory.hpp"
#include "support/http_fixture.hpp"
#include "support/shm_object.hpp"

namespace conch::tests {
namespace {

using transports::http::test::field;

const std::string infer_body =
  R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32","data":[)"
  R"(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}]})";

class http_restricted : public http_fixture {
 protected:
  void SetUp() override {
    auto http = test_http_options();
    http.restricted_features = {{"infer-key", "secret", {"inference", "shared-memory"}},
                                {"admin-key", "admin", {"model-repository", "health"}}};
    start_all(example_options(), http);
  }

  void expect_forbidden(const std::string& method, const std::string& target,
                        const std::string& key, const std::string& headers = {}) {
    auto r = call(method, target, method == "POST" ? "{}" : "", headers);
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 403) << target << ": " << r->body;
    EXPECT_EQ(field(*r, "Content-Type"), "application/json");
    EXPECT_EQ(r->body, R"({"error":"This API is restricted, expecting header ')" + key + R"('"})")
      << target;
  }

  // A server without GPUs wherever the test runs.
  runtime::test::scoped_device_memory no_gpus_{
    std::make_shared<runtime::test::fake_device_memory>(0)};
};

TEST_F(http_restricted, requests_without_the_header_get_403) {
  expect_forbidden("POST", "/v2/models/identity_fp32/infer", "infer-key");
  expect_forbidden("POST", "/v2/models/identity_fp32/generate", "infer-key");
  expect_forbidden("GET", "/v2/systemsharedmemory/status", "infer-key");
  expect_forbidden("POST", "/v2/cudasharedmemory/unregister", "infer-key");
  expect_forbidden("GET", "/v2/health/live", "admin-key");
  expect_forbidden("GET", "/v2/health/ready", "admin-key");
  expect_forbidden("GET", "/v2/models/identity_fp32/ready", "admin-key");
  expect_forbidden("POST", "/v2/repository/index", "admin-key");
  // The other group's header does not open this one.
  expect_forbidden("GET", "/v2/health/live", "admin-key", "infer-key: secret\r\n");
}

TEST_F(http_restricted, a_wrong_value_gets_403) {
  expect_forbidden("POST", "/v2/models/identity_fp32/infer", "infer-key", "infer-key: Secret\r\n");
  expect_forbidden("POST", "/v2/models/identity_fp32/infer", "infer-key", "infer-key: \r\n");
}

TEST_F(http_restricted, the_header_opens_the_group) {
  auto r = call("POST", "/v2/models/identity_fp32/infer", infer_body, "Infer-Key: secret\r\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  auto shm = call("GET", "/v2/systemsharedmemory/status", "", "infer-key: secret\r\n");
  ASSERT_TRUE(shm);
  EXPECT_EQ(shm->status, 200) << shm->body;
  // Past the restriction, the answer of a server without GPUs.
  auto cuda = call("POST", "/v2/cudasharedmemory/region/c/register",
                   R"({"raw_handle":{"b64":"AAAA"},"device_id":0,"byte_size":64})",
                   "infer-key: secret\r\n");
  ASSERT_TRUE(cuda);
  EXPECT_EQ(cuda->status, 400) << cuda->body;
  EXPECT_EQ(cuda->body, R"({"error":"failed to register CUDA shared memory region: 'c', )"
                        R"(GPUs not supported"})");
  auto live = call("GET", "/v2/health/live", "", "admin-key: admin\r\n");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->status, 200);
  EXPECT_EQ(live->body, "");
}

TEST_F(http_restricted, unrestricted_groups_need_no_header) {
  for (auto target : {"/v2", "/v2/models/identity_fp32", "/v2/models/identity_fp32/config",
                      "/v2/models/stats", "/v2/logging"}) {
    auto r = call("GET", target);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << target << ": " << r->body;
  }
}

TEST_F(http_restricted, restriction_comes_before_the_method_check_and_after_routing) {
  // A restricted endpoint with the wrong method: 403 without the header,
  // 405 with it.
  expect_forbidden("GET", "/v2/models/identity_fp32/infer", "infer-key");
  auto wrong = call("GET", "/v2/models/identity_fp32/infer", "", "infer-key: secret\r\n");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 405);
  // Unknown paths are no endpoint of any group.
  auto unknown = call("GET", "/v2/nothing/here");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
}

// -- every route of every HTTP frontend is in its group -----------------------

// The nine groups, each behind a header of its own name ("health-key: open"),
// so that a refusal names the group the route belongs to.
const char* const all_groups[] = {"health",           "metadata",         "inference",
                                  "shared-memory",    "model-config",     "model-repository",
                                  "statistics",       "trace",            "logging"};

actors::http_options every_group_restricted(actors::http_options o) {
  for (const char* g : all_groups)
    o.restricted_features.push_back({std::string{g} + "-key", "open", {g}});
  return o;
}

struct route_case {
  const char* method;
  const char* target;
  const char* group;
  const char* redirect = nullptr;  // Vertex AI: the X-Vertex-Ai-Triton-Redirect target
};

class http_every_route_restricted : public http_fixture {
 protected:
  void SetUp() override {
    start_all(example_options(), every_group_restricted(test_http_options()));
  }

  // Another frontend of the same server (SageMaker's or Vertex AI's paths),
  // under the same restrictions.
  uint16_t start_cloud(bool sagemaker) {
    auto o = every_group_restricted(test_http_options());
    if (sagemaker) {
      o.sagemaker = true;
      o.sagemaker_default_model = "identity_fp32";
    } else {
      o.vertex_ai = true;
      o.vertex_ai_default_model = "identity_fp32";
      o.vertex_ai_health_route = "/health";
      o.vertex_ai_predict_route = "/predict";
    }
    cloud_ = std::make_unique<actors::http_frontend>(*srv_, o);
    auto st = cloud_->start();
    EXPECT_TRUE(st) << st.to_string();
    return cloud_->port();
  }

  void expect_refused(uint16_t port, const route_case& c, const std::string& headers = {}) {
    std::string h = headers;
    if (c.redirect != nullptr)
      h += std::string{"X-Vertex-Ai-Triton-Redirect: "} + c.redirect + "\r\n";
    std::string what = std::string{c.method} + " " + c.target + (c.redirect ? c.redirect : "");
    auto r = http_call(port, c.method, c.target, std::string{c.method} == "GET" ? "" : "{}", h);
    ASSERT_TRUE(r) << what;
    EXPECT_EQ(r->status, 403) << what << ": " << r->body;
    EXPECT_EQ(r->body, std::string{R"({"error":"This API is restricted, expecting header ')"}
                         + c.group + R"(-key'"})")
      << what;
  }

  // The header of every group but `group`: a route still refused with all
  // of them is in `group` alone.
  static std::string headers_except(const char* group) {
    std::string h;
    for (const char* g : all_groups)
      if (std::string{g} != group)
        h += std::string{g} + "-key: open\r\n";
    return h;
  }

  void TearDown() override {
    cloud_.reset();
    http_fixture::TearDown();
  }

  std::unique_ptr<actors::http_frontend> cloud_;
};

TEST_F(http_every_route_restricted, every_kserve_route_is_refused_by_its_own_group) {
  const route_case routes[] = {
    {"GET", "/v2", "metadata"},
    {"GET", "/v2/health/live", "health"},
    {"GET", "/v2/health/ready", "health"},
    {"GET", "/v2/models/identity_fp32", "metadata"},
    {"GET", "/v2/models/identity_fp32/versions/1", "metadata"},
    {"GET", "/v2/models/identity_fp32/ready", "health"},
    {"GET", "/v2/models/identity_fp32/versions/1/ready", "health"},
    {"GET", "/v2/models/identity_fp32/config", "model-config"},
    {"POST", "/v2/models/identity_fp32/infer", "inference"},
    {"POST", "/v2/models/identity_fp32/versions/1/infer", "inference"},
    {"POST", "/v2/models/identity_fp32/generate", "inference"},
    {"POST", "/v2/models/identity_fp32/generate_stream", "inference"},
    {"GET", "/v2/models/identity_fp32/stats", "statistics"},
    {"GET", "/v2/models/identity_fp32/versions/1/stats", "statistics"},
    {"GET", "/v2/models/stats", "statistics"},
    {"GET", "/v2/models/identity_fp32/trace/setting", "trace"},
    {"POST", "/v2/models/identity_fp32/trace/setting", "trace"},
    {"GET", "/v2/trace/setting", "trace"},
    {"POST", "/v2/trace/setting", "trace"},
    {"GET", "/v2/logging", "logging"},
    {"POST", "/v2/logging", "logging"},
    {"GET", "/v2/systemsharedmemory/status", "shared-memory"},
    {"GET", "/v2/systemsharedmemory/region/r/status", "shared-memory"},
    {"POST", "/v2/systemsharedmemory/region/r/register", "shared-memory"},
    {"POST", "/v2/systemsharedmemory/region/r/unregister", "shared-memory"},
    {"POST", "/v2/systemsharedmemory/unregister", "shared-memory"},
    {"GET", "/v2/cudasharedmemory/status", "shared-memory"},
    {"POST", "/v2/cudasharedmemory/region/r/register", "shared-memory"},
    {"POST", "/v2/cudasharedmemory/unregister", "shared-memory"},
    {"POST", "/v2/repository/index", "model-repository"},
    {"POST", "/v2/repository/some_repo/index", "model-repository"},
    {"POST", "/v2/repository/models/identity_fp32/load", "model-repository"},
    {"POST", "/v2/repository/models/identity_fp32/unload", "model-repository"},
    {"POST", "/v2/repository/some_repo/models/identity_fp32/unload", "model-repository"},
  };
  for (const auto& c : routes) {
    expect_refused(port_, c);
    expect_refused(port_, c, headers_except(c.group));
  }
  // The model is still loaded: no refused request reached the server.
  auto ready = call("GET", "/v2/models/identity_fp32/ready", "", "health-key: open\r\n");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
}

TEST_F(http_every_route_restricted, each_groups_header_opens_its_routes) {
  const std::pair<const char*, const char*> reads[] = {
    {"/v2", "metadata"},
    {"/v2/health/ready", "health"},
    {"/v2/models/identity_fp32", "metadata"},
    {"/v2/models/identity_fp32/config", "model-config"},
    {"/v2/models/stats", "statistics"},
    {"/v2/trace/setting", "trace"},
    {"/v2/logging", "logging"},
    {"/v2/systemsharedmemory/status", "shared-memory"},
  };
  for (auto [target, group] : reads) {
    auto r = call("GET", target, "", std::string{group} + "-key: open\r\n");
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 200) << target << ": " << r->body;
  }
  auto infer =
    call("POST", "/v2/models/identity_fp32/infer", infer_body, "inference-key: open\r\n");
  ASSERT_TRUE(infer);
  EXPECT_EQ(infer->status, 200) << infer->body;
  auto index = call("POST", "/v2/repository/index", "{}", "model-repository-key: open\r\n");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200) << index->body;
}

TEST_F(http_every_route_restricted, every_sagemaker_route_is_in_a_group) {
  auto port = start_cloud(true);
  ASSERT_NE(port, 0);
  const route_case routes[] = {
    {"GET", "/ping", "health"},
    {"POST", "/ping", "health"},
    {"POST", "/invocations", "inference"},
    {"GET", "/models", "model-repository"},
    {"POST", "/models", "model-repository"},
    {"GET", "/models/identity_fp32", "model-repository"},
    {"DELETE", "/models/identity_fp32", "model-repository"},
    // Refused before the model is looked up: whether it is loaded is not told.
    {"POST", "/models/not_loaded/invoke", "inference"},
    {"POST", "/models/identity_fp32/invoke", "inference"},
  };
  for (const auto& c : routes) {
    expect_refused(port, c);
    expect_refused(port, c, headers_except(c.group));
  }
  auto ping = http_call(port, "GET", "/ping", "", "health-key: open\r\n");
  ASSERT_TRUE(ping);
  EXPECT_EQ(ping->status, 200);
  auto run = http_call(port, "POST", "/invocations", infer_body, "inference-key: open\r\n");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, 200) << run->body;
  auto list = http_call(port, "GET", "/models", "", "model-repository-key: open\r\n");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->status, 200) << list->body;
}

TEST_F(http_every_route_restricted, every_vertex_ai_route_and_redirect_is_in_a_group) {
  auto port = start_cloud(false);
  ASSERT_NE(port, 0);
  const route_case routes[] = {
    {"GET", "/health", "health"},
    {"POST", "/predict", "inference"},
    {"POST", "/predict", "statistics", "metrics"},
    {"POST", "/predict", "statistics", "/metrics"},
    {"POST", "/predict", "metadata", "v2"},
    {"POST", "/predict", "health", "v2/health/live"},
    {"POST", "/predict", "health", "v2/health/ready"},
    {"POST", "/predict", "statistics", "v2/models/stats"},
    {"POST", "/predict", "metadata", "v2/models/identity_fp32"},
    {"POST", "/predict", "health", "v2/models/identity_fp32/versions/1/ready"},
    {"POST", "/predict", "model-config", "v2/models/identity_fp32/config"},
    {"POST", "/predict", "statistics", "v2/models/identity_fp32/stats"},
    {"POST", "/predict", "inference", "v2/models/identity_fp32/infer"},
    {"POST", "/predict", "shared-memory", "v2/systemsharedmemory/status"},
    {"POST", "/predict", "shared-memory", "v2/systemsharedmemory/region/r/register"},
    {"POST", "/predict", "shared-memory", "v2/cudasharedmemory/region/r/unregister"},
    {"POST", "/predict", "model-repository", "v2/repository/index"},
    {"POST", "/predict", "model-repository", "v2/repository/models/identity_fp32/unload"},
  };
  for (const auto& c : routes) {
    expect_refused(port, c);
    expect_refused(port, c, headers_except(c.group));
  }
  auto metrics = http_call(port, "POST", "/predict", "",
                           "X-Vertex-Ai-Triton-Redirect: metrics\r\nstatistics-key: open\r\n");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_NE(metrics->body.find("nv_inference_count"), std::string::npos);
  auto health = http_call(port, "GET", "/health", "", "health-key: open\r\n");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  auto predict = http_call(port, "POST", "/predict", infer_body, "inference-key: open\r\n");
  ASSERT_TRUE(predict);
  EXPECT_EQ(predict->status, 200) << predict->body;
}

// -- client shared memory ----------------------------------------------------

const std::string shm_disabled =
  R"({"error":"Client shared memory is disabled. Start the server with )"
  R"('--allow-client-shm=true' to enable."})";

class http_client_shm : public http_fixture {
 protected:
  void SetUp() override {
    auto http = test_http_options();
    http.allow_client_shm = false;
    start_all(example_options(), http);
  }
};

TEST(http_client_shm_default, is_denied) {
  EXPECT_FALSE(actors::http_options{}.allow_client_shm);
}

TEST_F(http_client_shm, register_and_unregister_are_refused_and_status_is_served) {
  shm_object object{64};
  ASSERT_TRUE(object.ok());
  const std::pair<const char*, std::string> changes[] = {
    {"/v2/systemsharedmemory/region/r/register",
     R"({"key":")" + object.key() + R"(","offset":0,"byte_size":64})"},
    {"/v2/systemsharedmemory/region/r/unregister", ""},
    {"/v2/systemsharedmemory/unregister", ""},
    {"/v2/cudasharedmemory/region/c/register",
     R"({"raw_handle":{"b64":"AAAA"},"device_id":0,"byte_size":64})"},
    {"/v2/cudasharedmemory/unregister", ""},
  };
  for (const auto& [target, body] : changes) {
    auto r = call("POST", target, body);
    ASSERT_TRUE(r) << target;
    EXPECT_EQ(r->status, 501) << target;
    EXPECT_EQ(r->body, shm_disabled) << target;
  }
  for (auto target : {"/v2/systemsharedmemory/status", "/v2/cudasharedmemory/status"}) {
    auto r = call("GET", target);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << target;
    EXPECT_EQ(r->body, "[]") << target;
  }
}

TEST_F(http_client_shm, a_region_registered_elsewhere_is_not_reachable_here) {
  // Another frontend of the same server allows client shared memory.
  auto open = test_http_options();
  actors::http_frontend other{*srv_, open};
  ASSERT_TRUE(other.start());
  shm_object object{64};
  ASSERT_TRUE(object.ok());
  auto reg = http_call(other.port(), "POST", "/v2/systemsharedmemory/region/in/register",
                       R"({"key":")" + object.key() + R"(","offset":0,"byte_size":64})");
  ASSERT_TRUE(reg);
  ASSERT_EQ(reg->status, 200) << reg->body;
  const std::string by_region =
    R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32",)" + shm_params("in", 0, 64)
    + "}]}";
  auto refused = call("POST", "/v2/models/identity_fp32/infer", by_region);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 501);
  EXPECT_EQ(refused->body, shm_disabled);
  const std::string into_region =
    infer_body.substr(0, infer_body.size() - 1)
    + R"(,"outputs":[{"name":"OUTPUT0",)" + shm_params("in", 0, 64) + "}]}";
  auto refused_output = call("POST", "/v2/models/identity_fp32/infer", into_region);
  ASSERT_TRUE(refused_output);
  EXPECT_EQ(refused_output->status, 501);
  auto served = http_call(other.port(), "POST", "/v2/models/identity_fp32/infer", by_region);
  ASSERT_TRUE(served);
  EXPECT_EQ(served->status, 200) << served->body;
  (void) http_call(other.port(), "POST", "/v2/systemsharedmemory/unregister");
}

} // namespace
} // namespace conch::tests
