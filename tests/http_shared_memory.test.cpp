// The system shared-memory extension over the KServe HTTP frontend:
// registering POSIX shared-memory objects the test creates, inference whose
// inputs and outputs live in them, and the lifetime of a region
// unregistered while a request uses it. The CUDA extension is in
// http_cuda_shared_memory.test.cpp.

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "support/gate_backend.hpp"
#include "support/http_fixture.hpp"
#include "support/shm_object.hpp"

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

std::string register_body(const std::string& key, uint64_t offset, uint64_t byte_size) {
  return R"({"key":")" + key + R"(","offset":)" + std::to_string(offset) + R"(,"byte_size":)"
         + std::to_string(byte_size) + "}";
}

class http_shared_memory : public http_fixture {
 protected:
  void SetUp() override { start_all(); }

  void register_region(const std::string& name, const shm_object& o, uint64_t offset,
                       uint64_t byte_size) {
    auto r = call("POST", "/v2/systemsharedmemory/region/" + name + "/register",
                  register_body(o.key(), offset, byte_size));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }

  void expect_error(const std::optional<raw_response>& r, int status, const std::string& message) {
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, status) << r->body;
    EXPECT_EQ(field(*r, "Content-Type"), "application/json");
    EXPECT_EQ(r->body, R"({"error":")" + message + R"("})");
  }
};

TEST_F(http_shared_memory, register_status_and_unregister) {
  shm_object a{4096}, b{4096};
  ASSERT_TRUE(a.ok() && b.ok());
  auto empty = call("GET", "/v2/systemsharedmemory/status");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->status, 200);
  EXPECT_EQ(empty->body, "[]");

  auto reg = call("POST", "/v2/systemsharedmemory/region/rb/register",
                  register_body(b.key(), 16, 128));
  ASSERT_TRUE(reg);
  EXPECT_EQ(reg->status, 200) << reg->body;
  EXPECT_EQ(reg->body, "");
  // offset is optional.
  auto reg_a = call("POST", "/v2/systemsharedmemory/region/ra/register",
                    R"({"key":")" + a.key() + R"(","byte_size":4096})");
  ASSERT_TRUE(reg_a);
  EXPECT_EQ(reg_a->status, 200) << reg_a->body;

  auto all = call("GET", "/v2/systemsharedmemory/status");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->status, 200);
  EXPECT_EQ(field(*all, "Content-Type"), "application/json");
  EXPECT_EQ(all->body, R"([{"name":"ra","key":")" + a.key()
                         + R"(","offset":0,"byte_size":4096},{"name":"rb","key":")" + b.key()
                         + R"(","offset":16,"byte_size":128}])");
  auto one = call("GET", "/v2/systemsharedmemory/region/rb/status");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 200);
  EXPECT_EQ(one->body, R"([{"name":"rb","key":")" + b.key() + R"(","offset":16,"byte_size":128}])");

  auto un = call("POST", "/v2/systemsharedmemory/region/rb/unregister");
  ASSERT_TRUE(un);
  EXPECT_EQ(un->status, 200);
  expect_error(call("GET", "/v2/systemsharedmemory/region/rb/status"), 404,
               "Unable to find system shared memory region: 'rb'");
  // An unknown name is a silent success.
  auto unknown = call("POST", "/v2/systemsharedmemory/region/never/unregister");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 200);

  auto un_all = call("POST", "/v2/systemsharedmemory/unregister");
  ASSERT_TRUE(un_all);
  EXPECT_EQ(un_all->status, 200);
  auto none = call("GET", "/v2/systemsharedmemory/status");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->body, "[]");
  EXPECT_EQ(a.process_mappings(), 0);
}

TEST_F(http_shared_memory, bad_registrations_get_400) {
  shm_object a{4096};
  ASSERT_TRUE(a.ok());
  register_region("r", a, 0, 64);
  expect_error(call("POST", "/v2/systemsharedmemory/region/r/register",
                    register_body(a.key(), 0, 64)),
               400, "shared memory region 'r' already in manager");
  expect_error(call("POST", "/v2/systemsharedmemory/region/x/register",
                    register_body("/conch_test_no_such_object", 0, 64)),
               500, "Unable to open shared memory region: '/conch_test_no_such_object'");
  auto beyond = call("POST", "/v2/systemsharedmemory/region/x/register",
                     register_body(a.key(), 4000, 200));
  ASSERT_TRUE(beyond);
  EXPECT_EQ(beyond->status, 400) << beyond->body;
  EXPECT_NE(beyond->body.find("failed to register shared memory region 'x': invalid args"),
            std::string::npos);
  expect_error(call("POST", "/v2/systemsharedmemory/region/x/register",
                    R"({"key":")" + a.key() + R"("})"),
               400, "Unable to parse 'byte_size': the field is missing");
  expect_error(call("POST", "/v2/systemsharedmemory/region/x/register", R"({"byte_size":4})"),
               400, "Unable to parse 'key': the field is missing");
  auto garbage = call("POST", "/v2/systemsharedmemory/region/x/register", "{nope");
  ASSERT_TRUE(garbage);
  EXPECT_EQ(garbage->status, 400);
  auto nameless = call("POST", "/v2/systemsharedmemory/register", register_body(a.key(), 0, 4));
  ASSERT_TRUE(nameless);
  EXPECT_EQ(nameless->status, 400);
  // Nothing but the first registration took.
  auto all = call("GET", "/v2/systemsharedmemory/status");
  ASSERT_TRUE(all);
  EXPECT_EQ(json_of(all->body).Size(), 1u);
}

TEST_F(http_shared_memory, infer_reads_inputs_and_writes_outputs_in_regions) {
  shm_object in{4096}, out{4096};
  ASSERT_TRUE(in.ok() && out.ok());
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i)
    values[i] = 1.5f * static_cast<float>(i);
  in.write(256, values.data(), 64);
  register_region("in", in, 0, 4096);
  // A region that starts inside the object, at an offset that is no page
  // boundary.
  register_region("out", out, 100, 1000);

  auto r = call("POST", "/v2/models/identity_fp32/infer",
                R"({"id":"s1","inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32",)"
                  + shm_params("in", 256, 64) + R"(}],"outputs":[{"name":"OUTPUT0",)"
                  + shm_params("out", 8, 64) + "}]}");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(field(*r, "Content-Type"), "application/json");
  EXPECT_EQ(field(*r, "Inference-Header-Content-Length"), "<missing>");
  EXPECT_EQ(r->body, R"({"id":"s1","model_name":"identity_fp32","model_version":"1",)"
                     R"("outputs":[{"name":"OUTPUT0","datatype":"FP32","shape":[1,16]}]})");
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(out.read<float>(100 + 8 + 4 * i), values[i]) << i;
}

TEST_F(http_shared_memory, a_region_whose_object_shrank_fails_requests_not_the_server) {
  shm_object in{4096}, out{4096};
  ASSERT_TRUE(in.ok() && out.ok());
  register_region("in", in, 0, 4096);
  register_region("out", out, 0, 4096);
  auto body = R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32",)"
              + shm_params("in", 0, 64) + R"(}],"outputs":[{"name":"OUTPUT0",)"
              + shm_params("out", 0, 64) + "}]}";
  ASSERT_TRUE(in.shrink_to(0));
  // The request reads a page that is gone: a fault that would end the
  // process is caught, and the request fails.
  auto r = call("POST", "/v2/models/identity_fp32/infer", body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  EXPECT_NE(r->body.find("shrank"), std::string::npos) << r->body;
  // The torn region is refused from now on; the other one still works.
  r = call("POST", "/v2/models/identity_fp32/infer", body);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  ASSERT_TRUE(out.shrink_to(0));
  r = call("POST", "/v2/models/identity_fp32/infer",
           R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32","data":[)"
           R"(0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15]}],"outputs":[{"name":"OUTPUT0",)"
             + shm_params("out", 0, 64) + "}]}");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400) << r->body;
  r = call("GET", "/v2/health/ready", "");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  // Registered again, the region works.
  ASSERT_TRUE(in.shrink_to(4096));
  ASSERT_EQ(call("POST", "/v2/systemsharedmemory/region/in/unregister", "")->status, 200);
  register_region("in", in, 0, 4096);
  r = call("POST", "/v2/models/identity_fp32/infer",
           R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32",)"
             + shm_params("in", 0, 64) + "}]}");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
}

TEST_F(http_shared_memory, shared_memory_mixes_with_json_and_binary) {
  shm_object io{4096};
  ASSERT_TRUE(io.ok());
  std::vector<int32_t> a(16), b(16);
  for (int i = 0; i < 16; ++i) {
    a[i] = i;
    b[i] = 100;
  }
  io.write(0, a.data(), 64);
  register_region("io", io, 0, 4096);
  // INPUT0 from the region, INPUT1 as JSON; OUTPUT0 to the region,
  // OUTPUT1 back in binary.
  std::string ones;
  for (int i = 0; i < 16; ++i)
    ones += (i ? ",100" : "100");
  auto r = call("POST", "/v2/models/simple/infer",
                R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"INT32",)"
                  + shm_params("io", 0, 64)
                  + R"(},{"name":"INPUT1","shape":[1,16],"datatype":"INT32","data":[)" + ones
                  + R"(]}],"outputs":[{"name":"OUTPUT0",)" + shm_params("io", 1024, 64)
                  + R"(},{"name":"OUTPUT1","parameters":{"binary_data":true}}]})");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  auto json_length = std::stoul(field(*r, "Inference-Header-Content-Length"));
  ASSERT_EQ(r->body.size(), json_length + 64);
  auto d = json_of(r->body.substr(0, json_length));
  const auto& outs = d["outputs"];
  ASSERT_EQ(outs.Size(), 2u);
  for (const auto& o : outs.GetArray()) {
    if (std::string{o["name"].GetString()} == "OUTPUT0") {
      EXPECT_FALSE(o.HasMember("data"));
      EXPECT_FALSE(o.HasMember("parameters"));
    } else {
      EXPECT_EQ(o["parameters"]["binary_data_size"].GetInt(), 64);
    }
  }
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(io.read<int32_t>(1024 + 4 * i), i + 100) << i;
    int32_t diff;
    std::memcpy(&diff, r->body.data() + json_length + 4 * i, 4);
    EXPECT_EQ(diff, i - 100) << i;
  }
}

TEST_F(http_shared_memory, infer_errors) {
  shm_object o{4096};
  ASSERT_TRUE(o.ok());
  register_region("r", o, 0, 128);
  auto infer = [&](const std::string& input_params, const std::string& outputs = "") {
    return call("POST", "/v2/models/identity_fp32/infer",
                R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32",)" + input_params
                  + "}]" + outputs + "}");
  };
  expect_error(infer(shm_params("nope", 0, 64)), 404,
               "Unable to find shared memory region: 'nope'");
  expect_error(infer(shm_params("r", 100, 64)), 400,
               "Invalid offset + byte size for shared memory region: 'r'");
  expect_error(infer(shm_params("r", 200, 0)), 400,
               "Invalid offset for shared memory region: 'r'");
  // The byte size disagrees with the shape.
  auto size = infer(shm_params("r", 0, 60));
  ASSERT_TRUE(size);
  EXPECT_EQ(size->status, 400) << size->body;
  // Data and a region at once.
  auto both = infer(R"("data":[)" + std::string(31, ' ') + "0]," + shm_params("r", 0, 64));
  ASSERT_TRUE(both);
  EXPECT_EQ(both->status, 400) << both->body;
  // An output region too small for the output.
  expect_error(infer(shm_params("r", 0, 64),
                     R"(,"outputs":[{"name":"OUTPUT0",)" + shm_params("r", 64, 32) + "}]"),
               400,
               "output 'OUTPUT0': shared memory size specified with the request for output "
               "'OUTPUT0' (32 bytes) should be at least 64 bytes to hold the results");
  expect_error(infer(shm_params("r", 0, 64),
                     R"(,"outputs":[{"name":"OUTPUT0",)" + shm_params("gone", 0, 64) + "}]"),
               404, "Unable to find shared memory region: 'gone'");
  // The frontend keeps serving.
  auto ok = infer(shm_params("r", 0, 64));
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
}

TEST_F(http_shared_memory, regions_outlive_a_frontend_restart) {
  shm_object o{4096};
  ASSERT_TRUE(o.ok());
  register_region("r", o, 0, 64);
  ASSERT_TRUE(http_->stop());
  ASSERT_TRUE(http_->start());
  port_ = http_->port();
  auto one = call("GET", "/v2/systemsharedmemory/region/r/status");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 200) << one->body;
}

// A model whose executions wait at a gate, to hold a request that uses a
// region while the region is unregistered.
class http_shared_memory_gated : public http_fixture {
 protected:
  void SetUp() override {
    gate_ = std::make_shared<gate>();
    register_gate_backend("gate_shm", gate_);
    repo_.add_model("held", gate_config("held", "gate_shm", 0));
    start_all(options_for(repo_.str()));
  }

  void TearDown() override {
    gate_->open();
    http_fixture::TearDown();
  }

  std::shared_ptr<gate> gate_;
  temp_repository repo_;
};

TEST_F(http_shared_memory_gated, a_region_in_use_is_released_after_the_request) {
  shm_object in{4096}, out{4096};
  ASSERT_TRUE(in.ok() && out.ok());
  const float values[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  in.write(0, values, 16);
  for (auto [name, obj] : {std::pair{"in", &in}, std::pair{"out", &out}}) {
    auto r = call("POST", std::string{"/v2/systemsharedmemory/region/"} + name + "/register",
                  register_body(obj->key(), 0, 4096));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  raw_client c{port_};
  ASSERT_TRUE(c.send(make_request(
    "POST", "/v2/models/held/infer",
    R"({"inputs":[{"name":"INPUT0","shape":[4],"datatype":"FP32",)" + shm_params("in", 0, 16)
      + R"(}],"outputs":[{"name":"OUTPUT0",)" + shm_params("out", 32, 16) + "}]}")));
  ASSERT_TRUE(gate_->wait_entered(1));
  auto un = call("POST", "/v2/systemsharedmemory/unregister");
  ASSERT_TRUE(un);
  ASSERT_EQ(un->status, 200);
  // As in Triton, both stay registered, and listed, while the request uses
  // them; the request holds both mappings.
  auto status = call("GET", "/v2/systemsharedmemory/status");
  ASSERT_TRUE(status);
  EXPECT_NE(status->body.find(R"("name":"in")"), std::string::npos) << status->body;
  EXPECT_NE(status->body.find(R"("name":"out")"), std::string::npos) << status->body;
  EXPECT_EQ(in.process_mappings(), 1);
  EXPECT_EQ(out.process_mappings(), 1);
  gate_->open();
  auto r = c.read_response();
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(out.read<float>(32 + 4 * i), values[i]) << i;
  // Once the request is done, they are gone, and nothing maps the objects.
  EXPECT_TRUE(eventually([&] { return in.process_mappings() == 0; }));
  EXPECT_TRUE(eventually([&] { return out.process_mappings() == 0; }));
  status = call("GET", "/v2/systemsharedmemory/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->body, "[]");
}

} // namespace
} // namespace conch::tests
