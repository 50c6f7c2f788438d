// Restricted endpoint groups over the KServe HTTP frontend: a request to a
// restricted group without the group's header and value gets 403.

#include <string>

#include <gtest/gtest.h>

#include "conch/runtime/test/fake_device_memory.hpp"
#include "support/http_fixture.hpp"

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

} // namespace
} // namespace conch::tests
