// The CUDA shared-memory extension over the KServe HTTP frontend. No test
// machine is sure to have a GPU, so the server gets a fake device memory
// provider (host memory labelled as a GPU's, copies by memcpy): the
// registry, the tensor copies and the HTTP answers are the real ones.

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "conch/runtime/device_memory.hpp"
#include "conch/runtime/test/fake_device_memory.hpp"
#include "support/gate_backend.hpp"
#include "support/http_fixture.hpp"
#include "support/shm_object.hpp"

namespace conch::tests {
namespace {

using runtime::test::fake_device_memory;
using runtime::test::scoped_device_memory;
using transports::http::test::field;
using transports::http::test::make_request;

// Standard base64 with padding, as a client encodes a cudaIpcMemHandle_t.
std::string base64(const std::string& bytes) {
  static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size())
      n |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size())
      n |= static_cast<uint8_t>(bytes[i + 2]);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? alphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? alphabet[n & 63] : '=';
  }
  return out;
}

std::string cuda_register_body(const std::string& handle, int64_t device_id,
                               uint64_t byte_size) {
  return R"({"raw_handle":{"b64":")" + base64(handle) + R"("},"device_id":)"
         + std::to_string(device_id) + R"(,"byte_size":)" + std::to_string(byte_size) + "}";
}

// A server whose device memory is a fake with `devices` GPUs, installed
// for the test's length (the server keeps the provider it starts with).
class cuda_fixture : public http_fixture {
 protected:
  void start_with(int devices, actors::server_options options = example_options()) {
    memory_ = std::make_shared<fake_device_memory>(devices);
    installed_ = std::make_unique<scoped_device_memory>(memory_);
    start_all(std::move(options));
  }

  void TearDown() override {
    http_fixture::TearDown();
    installed_.reset();
  }

  std::optional<raw_response> register_cuda(const std::string& name, const std::string& body) {
    return call("POST", "/v2/cudasharedmemory/region/" + name + "/register", body);
  }

  void expect_error(const std::optional<raw_response>& r, int status, const std::string& message) {
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, status) << r->body;
    EXPECT_EQ(field(*r, "Content-Type"), "application/json");
    EXPECT_EQ(r->body, R"({"error":")" + message + R"("})");
  }

  std::shared_ptr<fake_device_memory> memory_;
  std::unique_ptr<scoped_device_memory> installed_;
};

class http_cuda_shared_memory : public cuda_fixture {
 protected:
  void SetUp() override { start_with(2); }
};

TEST_F(http_cuda_shared_memory, register_status_and_unregister) {
  auto h0 = memory_->export_allocation(4096, 0);
  auto h1 = memory_->export_allocation(4096, 1);
  auto empty = call("GET", "/v2/cudasharedmemory/status");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->status, 200);
  EXPECT_EQ(empty->body, "[]");

  auto reg = register_cuda("gb", cuda_register_body(h1, 1, 128));
  ASSERT_TRUE(reg);
  EXPECT_EQ(reg->status, 200) << reg->body;
  EXPECT_EQ(reg->body, "");
  reg = register_cuda("ga", cuda_register_body(h0, 0, 4096));
  ASSERT_TRUE(reg);
  EXPECT_EQ(reg->status, 200) << reg->body;
  EXPECT_EQ(memory_->open_handles(), 2);

  auto all = call("GET", "/v2/cudasharedmemory/status");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->status, 200);
  EXPECT_EQ(field(*all, "Content-Type"), "application/json");
  EXPECT_EQ(all->body, R"([{"name":"ga","device_id":0,"byte_size":4096},)"
                       R"({"name":"gb","device_id":1,"byte_size":128}])");
  auto one = call("GET", "/v2/cudasharedmemory/region/gb/status");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 200);
  EXPECT_EQ(one->body, R"([{"name":"gb","device_id":1,"byte_size":128}])");

  auto un = call("POST", "/v2/cudasharedmemory/region/gb/unregister");
  ASSERT_TRUE(un);
  EXPECT_EQ(un->status, 200);
  EXPECT_EQ(memory_->open_handles(), 1);
  expect_error(call("GET", "/v2/cudasharedmemory/region/gb/status"), 404,
               "Unable to find cuda shared memory region: 'gb'");
  auto unknown = call("POST", "/v2/cudasharedmemory/region/never/unregister");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 200);
  auto un_all = call("POST", "/v2/cudasharedmemory/unregister");
  ASSERT_TRUE(un_all);
  EXPECT_EQ(un_all->status, 200);
  auto none = call("GET", "/v2/cudasharedmemory/status");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->body, "[]");
  EXPECT_EQ(memory_->open_handles(), 0);
}

TEST_F(http_cuda_shared_memory, system_and_cuda_regions_share_one_namespace) {
  shm_object o{4096};
  ASSERT_TRUE(o.ok());
  auto handle = memory_->export_allocation(64);
  auto sys = call("POST", "/v2/systemsharedmemory/region/s/register",
                  R"({"key":")" + o.key() + R"(","byte_size":64})");
  ASSERT_TRUE(sys);
  ASSERT_EQ(sys->status, 200) << sys->body;
  auto cuda = register_cuda("c", cuda_register_body(handle, 0, 64));
  ASSERT_TRUE(cuda);
  ASSERT_EQ(cuda->status, 200) << cuda->body;

  expect_error(register_cuda("s", cuda_register_body(handle, 0, 64)), 400,
               "shared memory region 's' already in manager");
  expect_error(call("POST", "/v2/systemsharedmemory/region/c/register",
                    R"({"key":")" + o.key() + R"(","byte_size":64})"),
               400, "shared memory region 'c' already in manager");
  // Each kind's status knows only its own regions.
  expect_error(call("GET", "/v2/cudasharedmemory/region/s/status"), 404,
               "Unable to find cuda shared memory region: 's'");
  expect_error(call("GET", "/v2/systemsharedmemory/region/c/status"), 404,
               "Unable to find system shared memory region: 'c'");
  // Unregistering all of one kind leaves the other.
  auto un = call("POST", "/v2/cudasharedmemory/unregister");
  ASSERT_TRUE(un);
  EXPECT_EQ(un->status, 200);
  auto still = call("GET", "/v2/systemsharedmemory/region/s/status");
  ASSERT_TRUE(still);
  EXPECT_EQ(still->status, 200) << still->body;
  EXPECT_EQ(memory_->open_handles(), 0);
}

TEST_F(http_cuda_shared_memory, bad_registrations_get_400) {
  auto handle = memory_->export_allocation(64);
  expect_error(register_cuda("c", cuda_register_body(handle.substr(0, 32), 0, 64)), 400,
               "failed to register CUDA shared memory region: 'c', the raw handle must be 64 "
               "bytes (a cudaIpcMemHandle_t), not 32");
  expect_error(register_cuda("c", cuda_register_body(handle, 2, 64)), 400,
               "failed to register CUDA shared memory region: 'c', invalid device id 2 (the "
               "server has 2 GPUs)");
  expect_error(register_cuda("c", cuda_register_body(std::string(64, 'z'), 0, 64)), 400,
               "failed to register CUDA shared memory region: 'c', cudaIpcOpenMemHandle "
               "failed: invalid argument");
  expect_error(register_cuda("c", R"({"device_id":0,"byte_size":64})"), 400,
               "Unable to parse 'raw_handle': the field is missing");
  expect_error(register_cuda("c", R"({"raw_handle":{"b64":"AAAA"},"byte_size":64})"), 400,
               "Unable to parse 'device_id': the field is missing");
  expect_error(register_cuda("c", R"({"raw_handle":{"b64":"AAAA"},"device_id":0})"), 400,
               "Unable to parse 'byte_size': the field is missing");
  auto nameless = call("POST", "/v2/cudasharedmemory/register", cuda_register_body(handle, 0, 64));
  ASSERT_TRUE(nameless);
  EXPECT_EQ(nameless->status, 400) << nameless->body;
  auto all = call("GET", "/v2/cudasharedmemory/status");
  ASSERT_TRUE(all);
  EXPECT_EQ(all->body, "[]");
  EXPECT_EQ(memory_->open_handles(), 0);
}

TEST_F(http_cuda_shared_memory, infer_reads_inputs_and_writes_outputs_in_cuda_regions) {
  auto in = memory_->export_allocation(4096, 1);
  auto out = memory_->export_allocation(4096, 0);
  std::vector<float> values(16);
  for (int i = 0; i < 16; ++i)
    values[i] = 0.25f * static_cast<float>(i);
  std::memcpy(memory_->bytes(in) + 256, values.data(), 64);
  for (const auto& [name, handle, device] :
       {std::tuple{"in", in, 1}, std::tuple{"out", out, 0}}) {
    auto r = register_cuda(name, cuda_register_body(handle, device, 4096));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  auto r = call("POST", "/v2/models/identity_fp32/infer",
                R"({"id":"c1","inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32",)"
                  + shm_params("in", 256, 64) + R"(}],"outputs":[{"name":"OUTPUT0",)"
                  + shm_params("out", 8, 64) + "}]}");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->body, R"({"id":"c1","model_name":"identity_fp32","model_version":"1",)"
                     R"("outputs":[{"name":"OUTPUT0","datatype":"FP32","shape":[1,16]}]})");
  std::vector<float> got(16);
  std::memcpy(got.data(), memory_->bytes(out) + 8, 64);
  EXPECT_EQ(got, values);
  // One copy from the device for the input, one to it for the output.
  EXPECT_EQ(memory_->copies(), 2);
}

TEST_F(http_cuda_shared_memory, infer_errors_name_the_cuda_region) {
  auto handle = memory_->export_allocation(128);
  auto reg = register_cuda("g", cuda_register_body(handle, 0, 128));
  ASSERT_TRUE(reg);
  ASSERT_EQ(reg->status, 200) << reg->body;
  auto infer = [&](const std::string& input_params, const std::string& outputs = "") {
    return call("POST", "/v2/models/identity_fp32/infer",
                R"({"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32",)" + input_params
                  + "}]" + outputs + "}");
  };
  expect_error(infer(shm_params("g", 100, 64)), 400,
               "Invalid offset + byte size for shared memory region: 'g'");
  expect_error(infer(shm_params("g", 0, 64),
                     R"(,"outputs":[{"name":"OUTPUT0",)" + shm_params("g", 64, 32) + "}]"),
               400,
               "output 'OUTPUT0': shared memory size specified with the request for output "
               "'OUTPUT0' (32 bytes) should be at least 64 bytes to hold the results");
  auto ok = infer(shm_params("g", 0, 64),
                  R"(,"outputs":[{"name":"OUTPUT0",)" + shm_params("g", 64, 64) + "}]");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
}

// A server without GPUs, or one built without CUDA, answers the CUDA calls
// as perf_analyzer expects: status lists none, unregistering succeeds and
// registering is refused.
class http_cuda_shared_memory_without_gpus : public cuda_fixture {
 protected:
  void SetUp() override { start_with(0); }
};

TEST_F(http_cuda_shared_memory_without_gpus, registering_is_refused) {
  expect_error(register_cuda("c", R"({"raw_handle":{"b64":"AAAA"},"device_id":0,"byte_size":64})"),
               400, "failed to register CUDA shared memory region: 'c', GPUs not supported");
  expect_error(register_cuda("c", cuda_register_body(std::string(64, '\0'), 0, 64)), 400,
               "failed to register CUDA shared memory region: 'c', GPUs not supported");
  auto status = call("GET", "/v2/cudasharedmemory/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 200);
  EXPECT_EQ(status->body, "[]");
  expect_error(call("GET", "/v2/cudasharedmemory/region/c/status"), 404,
               "Unable to find cuda shared memory region: 'c'");
  for (auto target : {"/v2/cudasharedmemory/unregister", "/v2/cudasharedmemory/region/c/unregister"}) {
    auto un = call("POST", target);
    ASSERT_TRUE(un);
    EXPECT_EQ(un->status, 200) << target;
  }
}

// The provider a server installs itself when none is: the CUDA one on a
// CUDA build, which reports the machine's GPUs; none otherwise.
class http_cuda_shared_memory_own_provider : public http_fixture {
 protected:
  void SetUp() override { start_all(); }

  scoped_device_memory none_{nullptr};
};

TEST_F(http_cuda_shared_memory_own_provider, a_server_installs_the_cuda_provider_at_start) {
  auto memory = runtime::get_device_memory();
#ifdef CONCH_HAVE_CUDA
  ASSERT_NE(memory, nullptr);
#else
  EXPECT_EQ(memory, nullptr);
#endif
  if (memory && memory->device_count() > 0)
    GTEST_SKIP() << "this machine has a GPU: registering needs a handle from another process";
  auto r = call("POST", "/v2/cudasharedmemory/region/c/register",
                cuda_register_body(std::string(64, '\0'), 0, 64));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->body, R"({"error":"failed to register CUDA shared memory region: 'c', )"
                     R"(GPUs not supported"})");
}

// A model whose executions wait at a gate, to hold a request that uses CUDA
// regions while they are unregistered.
class http_cuda_shared_memory_gated : public cuda_fixture {
 protected:
  void SetUp() override {
    gate_ = std::make_shared<gate>();
    register_gate_backend("gate_cuda_shm", gate_);
    repo_.add_model("held", gate_config("held", "gate_cuda_shm", 0));
    start_with(1, options_for(repo_.str()));
  }

  void TearDown() override {
    gate_->open();
    cuda_fixture::TearDown();
  }

  std::shared_ptr<gate> gate_;
  temp_repository repo_;
};

TEST_F(http_cuda_shared_memory_gated, a_region_in_use_stays_open_until_the_request_is_done) {
  auto in = memory_->export_allocation(64);
  auto out = memory_->export_allocation(64);
  const float values[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  std::memcpy(memory_->bytes(in), values, 16);
  for (const auto& [name, handle] : {std::pair{"in", in}, std::pair{"out", out}}) {
    auto r = register_cuda(name, cuda_register_body(handle, 0, 64));
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  raw_client c{port_};
  ASSERT_TRUE(c.send(make_request(
    "POST", "/v2/models/held/infer",
    R"({"inputs":[{"name":"INPUT0","shape":[4],"datatype":"FP32",)" + shm_params("in", 0, 16)
      + R"(}],"outputs":[{"name":"OUTPUT0",)" + shm_params("out", 32, 16) + "}]}")));
  ASSERT_TRUE(gate_->wait_entered(1));
  auto un = call("POST", "/v2/cudasharedmemory/unregister");
  ASSERT_TRUE(un);
  ASSERT_EQ(un->status, 200);
  // The input was copied to host memory when the request was read, and its
  // region is gone; the output's stays registered (and listed, as in Triton)
  // and open for the request.
  auto status = call("GET", "/v2/cudasharedmemory/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->body, R"([{"name":"out","device_id":0,"byte_size":64}])");
  EXPECT_EQ(memory_->open_handles(), 1);
  gate_->open();
  auto r = c.read_response();
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  float got[4];
  std::memcpy(got, memory_->bytes(out) + 32, 16);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(got[i], values[i]) << i;
  EXPECT_TRUE(eventually([&] { return memory_->open_handles() == 0; }));
  status = call("GET", "/v2/cudasharedmemory/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->body, "[]");
}

} // namespace
} // namespace conch::tests
