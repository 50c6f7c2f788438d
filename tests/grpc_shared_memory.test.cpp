// The system and CUDA shared-memory RPCs of the KServe gRPC frontend, and
// ModelInfer and ModelStreamInfer whose inputs and outputs live in regions:
// through the generated stub, with POSIX objects the test creates and, for
// CUDA regions, a fake device memory provider (no test machine is sure to
// have a GPU). The regions are the server's, so a region registered over
// HTTP serves gRPC.

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conch/runtime/test/fake_device_memory.hpp"
#include "support/grpc_fixture.hpp"
#include "support/grpc_requests.hpp"
#include "support/http_fixture.hpp"
#include "support/shm_object.hpp"

namespace conch::tests {
namespace {

using runtime::test::fake_device_memory;
using runtime::test::scoped_device_memory;
using stream_type
  = grpc::ClientReaderWriter<inference::ModelInferRequest, inference::ModelStreamInferResponse>;

class grpc_shared_memory : public grpc_fixture {
 protected:
  void SetUp() override { start_all(); }

  grpc::Status register_region(const std::string& name, const shm_object& o, uint64_t offset,
                               uint64_t byte_size) {
    inference::SystemSharedMemoryRegisterRequest req;
    req.set_name(name);
    req.set_key(o.key());
    req.set_offset(offset);
    req.set_byte_size(byte_size);
    inference::SystemSharedMemoryRegisterResponse res;
    return stub_->SystemSharedMemoryRegister(client_context().get(), req, &res);
  }

  grpc::Status status(const std::string& name, inference::SystemSharedMemoryStatusResponse& res) {
    inference::SystemSharedMemoryStatusRequest req;
    req.set_name(name);
    return stub_->SystemSharedMemoryStatus(client_context().get(), req, &res);
  }

  grpc::Status unregister(const std::string& name) {
    inference::SystemSharedMemoryUnregisterRequest req;
    req.set_name(name);
    inference::SystemSharedMemoryUnregisterResponse res;
    return stub_->SystemSharedMemoryUnregister(client_context().get(), req, &res);
  }

  // "simple" with INPUT0 = 0..15 from region "in" at 0, INPUT1 = 1 raw, and
  // OUTPUT0 into region "out" at `out_offset`.
  inference::ModelInferRequest shm_request(int64_t out_offset) {
    inference::ModelInferRequest req;
    req.set_model_name("simple");
    req.set_id("shm");
    place_in_shared_memory(*add_input(req, "INPUT0", "INT32", {1, 16}), "in", 64);
    add_input(req, "INPUT1", "INT32", {1, 16});
    *req.add_raw_input_contents() = raw_bytes(std::vector<int32_t>(16, 1));
    auto* out0 = req.add_outputs();
    out0->set_name("OUTPUT0");
    place_in_shared_memory(*out0, "out", 64, out_offset);
    req.add_outputs()->set_name("OUTPUT1");
    return req;
  }

  // Checks the answer to shm_request: OUTPUT0 in the region, OUTPUT1 raw.
  void expect_shm_answer(const inference::ModelInferResponse& res, const shm_object& out,
                         size_t out_offset) {
    ASSERT_EQ(res.outputs_size(), 2);
    ASSERT_EQ(res.raw_output_contents_size(), 2);
    for (int i = 0; i < 2; ++i) {
      const auto& o = res.outputs(i);
      EXPECT_EQ(o.datatype(), "INT32");
      ASSERT_EQ(o.shape_size(), 2);
      EXPECT_EQ(o.shape(1), 16);
      if (o.name() == "OUTPUT0") {
        EXPECT_TRUE(res.raw_output_contents(i).empty());
      } else {
        auto values = from_raw<int32_t>(res.raw_output_contents(i));
        ASSERT_EQ(values.size(), 16u);
        EXPECT_EQ(values[15], 14);
      }
    }
    for (int k = 0; k < 16; ++k)
      EXPECT_EQ(out.read<int32_t>(out_offset + 4 * k), k + 1) << k;
  }

  // A server without GPUs wherever the test runs (it keeps the provider it
  // starts with).
  scoped_device_memory no_gpus_{std::make_shared<fake_device_memory>(0)};
};

TEST_F(grpc_shared_memory, register_status_and_unregister) {
  shm_object a{4096}, b{4096};
  ASSERT_TRUE(a.ok() && b.ok());
  inference::SystemSharedMemoryStatusResponse res;
  ASSERT_TRUE(status("", res).ok());
  EXPECT_TRUE(res.regions().empty());

  ASSERT_TRUE(register_region("ra", a, 0, 4096).ok());
  auto st = register_region("rb", b, 16, 128);
  ASSERT_TRUE(st.ok()) << st.error_message();
  res.Clear();
  ASSERT_TRUE(status("", res).ok());
  ASSERT_EQ(res.regions_size(), 2);
  const auto& rb = res.regions().at("rb");
  EXPECT_EQ(rb.name(), "rb");
  EXPECT_EQ(rb.key(), b.key());
  EXPECT_EQ(rb.offset(), 16u);
  EXPECT_EQ(rb.byte_size(), 128u);
  res.Clear();
  ASSERT_TRUE(status("ra", res).ok());
  ASSERT_EQ(res.regions_size(), 1);
  EXPECT_EQ(res.regions().at("ra").key(), a.key());

  ASSERT_TRUE(unregister("rb").ok());
  st = status("rb", res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(st.error_message(), "Unable to find system shared memory region: 'rb'");
  // An unknown name is a silent success; an empty one unregisters all.
  EXPECT_TRUE(unregister("never").ok());
  EXPECT_TRUE(unregister("").ok());
  res.Clear();
  ASSERT_TRUE(status("", res).ok());
  EXPECT_TRUE(res.regions().empty());
  EXPECT_EQ(a.process_mappings(), 0);
}

TEST_F(grpc_shared_memory, bad_registrations_are_refused) {
  shm_object a{4096};
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(register_region("r", a, 0, 64).ok());
  auto dup = register_region("r", a, 0, 64);
  EXPECT_EQ(dup.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(dup.error_message(), "shared memory region 'r' already in manager");
  EXPECT_EQ(register_region("big", a, 0, 8192).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(register_region("", a, 0, 64).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  inference::SystemSharedMemoryRegisterRequest req;
  req.set_name("x");
  req.set_key("/conch_test_no_such_object");
  req.set_byte_size(64);
  inference::SystemSharedMemoryRegisterResponse res;
  auto missing = stub_->SystemSharedMemoryRegister(client_context().get(), req, &res);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::INTERNAL);
}

TEST_F(grpc_shared_memory, without_gpus_cuda_regions_are_refused_but_listed_and_unregistered) {
  inference::CudaSharedMemoryRegisterRequest reg;
  reg.set_name("c");
  reg.set_raw_handle(std::string(64, '\0'));
  reg.set_byte_size(64);
  inference::CudaSharedMemoryRegisterResponse reg_res;
  auto st = stub_->CudaSharedMemoryRegister(client_context().get(), reg, &reg_res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(),
            "failed to register CUDA shared memory region: 'c', GPUs not supported");
  inference::CudaSharedMemoryStatusRequest sreq;
  inference::CudaSharedMemoryStatusResponse sres;
  st = stub_->CudaSharedMemoryStatus(client_context().get(), sreq, &sres);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(sres.regions().empty());
  sreq.set_name("c");
  st = stub_->CudaSharedMemoryStatus(client_context().get(), sreq, &sres);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  inference::CudaSharedMemoryUnregisterRequest ureq;
  inference::CudaSharedMemoryUnregisterResponse ures;
  EXPECT_TRUE(stub_->CudaSharedMemoryUnregister(client_context().get(), ureq, &ures).ok());
}

TEST_F(grpc_shared_memory, infer_reads_inputs_from_and_writes_outputs_to_regions) {
  shm_object in{64}, out{256};
  ASSERT_TRUE(in.ok() && out.ok());
  auto values = iota16(0);
  in.write(0, values.data(), 64);
  ASSERT_TRUE(register_region("in", in, 0, 64).ok());
  ASSERT_TRUE(register_region("out", out, 0, 256).ok());
  inference::ModelInferResponse res;
  auto st = stub_->ModelInfer(client_context().get(), shm_request(128), &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  expect_shm_answer(res, out, 128);
}

TEST_F(grpc_shared_memory, infer_errors_name_the_region) {
  shm_object in{64}, out{32};
  ASSERT_TRUE(in.ok() && out.ok());
  ASSERT_TRUE(register_region("in", in, 0, 64).ok());
  inference::ModelInferResponse res;
  // "out" is not registered yet.
  auto st = stub_->ModelInfer(client_context().get(), shm_request(0), &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(st.error_message(), "Unable to find shared memory region: 'out'");
  // A region smaller than the output.
  ASSERT_TRUE(register_region("out", out, 0, 32).ok());
  auto req = shm_request(0);
  place_in_shared_memory(*req.mutable_outputs(0), "out", 32);
  st = stub_->ModelInfer(client_context().get(), req, &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("should be at least 64 bytes"), std::string::npos)
    << st.error_message();
  // A range outside the region.
  st = stub_->ModelInfer(client_context().get(), shm_request(16), &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "Invalid offset + byte size for shared memory region: 'out'");
  // Typed contents with shared memory.
  req = shm_request(0);
  req.mutable_inputs(0)->mutable_contents()->add_int_contents(1);
  st = stub_->ModelInfer(client_context().get(), req, &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(grpc_shared_memory, stream_requests_use_regions_too) {
  shm_object in{64}, out{64};
  ASSERT_TRUE(in.ok() && out.ok());
  auto values = iota16(0);
  in.write(0, values.data(), 64);
  ASSERT_TRUE(register_region("in", in, 0, 64).ok());
  ASSERT_TRUE(register_region("out", out, 0, 64).ok());
  auto ctx = client_context();
  std::unique_ptr<stream_type> stream = stub_->ModelStreamInfer(ctx.get());
  ASSERT_TRUE(stream->Write(shm_request(0)));
  inference::ModelStreamInferResponse res;
  ASSERT_TRUE(stream->Read(&res));
  EXPECT_EQ(res.error_message(), "");
  expect_shm_answer(res.infer_response(), out, 0);
  // A missing region is an in-stream error; the stream goes on.
  auto bad = shm_request(0);
  place_in_shared_memory(*bad.mutable_inputs(0), "missing", 64);
  ASSERT_TRUE(stream->Write(bad));
  ASSERT_TRUE(stream->Read(&res));
  EXPECT_EQ(res.error_message(), "Unable to find shared memory region: 'missing'");
  ASSERT_TRUE(stream->WritesDone());
  EXPECT_FALSE(stream->Read(&res));
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(grpc_shared_memory, a_region_registered_over_http_serves_grpc) {
  actors::http_frontend http{*srv_, test_http_options()};
  ASSERT_TRUE(http.start());
  shm_object in{64}, out{64};
  ASSERT_TRUE(in.ok() && out.ok());
  auto values = iota16(0);
  in.write(0, values.data(), 64);
  for (const auto& [name, o] : {std::pair<std::string, const shm_object*>{"in", &in},
                                {"out", &out}}) {
    auto r = http_call(http.port(), "POST", "/v2/systemsharedmemory/region/" + name + "/register",
                       R"({"key":")" + o->key() + R"(","byte_size":64})");
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
  }
  inference::SystemSharedMemoryStatusResponse listed;
  ASSERT_TRUE(status("", listed).ok());
  EXPECT_EQ(listed.regions_size(), 2);
  inference::ModelInferResponse res;
  auto st = stub_->ModelInfer(client_context().get(), shm_request(0), &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  expect_shm_answer(res, out, 0);
  // Unregistered over gRPC, gone for HTTP: once the server let go of the
  // answered request, which may be just after the client read its answer
  // (a region stays registered while a request uses it, as in Triton).
  ASSERT_TRUE(unregister("").ok());
  std::string body;
  EXPECT_TRUE(eventually([&] {
    auto r = http_call(http.port(), "GET", "/v2/systemsharedmemory/status");
    body = r ? r->body : "no answer";
    return body == "[]";
  })) << body;
}

// A server with one (fake) GPU.
class grpc_cuda_shared_memory : public grpc_fixture {
 protected:
  void SetUp() override { start_all(); }

  grpc::Status register_cuda(const std::string& name, const std::string& handle,
                             uint64_t byte_size, int64_t device_id = 0) {
    inference::CudaSharedMemoryRegisterRequest req;
    req.set_name(name);
    req.set_raw_handle(handle);
    req.set_device_id(device_id);
    req.set_byte_size(byte_size);
    inference::CudaSharedMemoryRegisterResponse res;
    return stub_->CudaSharedMemoryRegister(client_context().get(), req, &res);
  }

  grpc::Status status(const std::string& name, inference::CudaSharedMemoryStatusResponse& res) {
    inference::CudaSharedMemoryStatusRequest req;
    req.set_name(name);
    return stub_->CudaSharedMemoryStatus(client_context().get(), req, &res);
  }

  std::shared_ptr<fake_device_memory> memory_ = std::make_shared<fake_device_memory>(1);
  scoped_device_memory installed_{memory_};
};

TEST_F(grpc_cuda_shared_memory, register_status_and_unregister) {
  auto handle = memory_->export_allocation(256);
  ASSERT_TRUE(register_cuda("g", handle, 256).ok());
  inference::CudaSharedMemoryStatusResponse res;
  ASSERT_TRUE(status("", res).ok());
  ASSERT_EQ(res.regions_size(), 1);
  const auto& g = res.regions().at("g");
  EXPECT_EQ(g.name(), "g");
  EXPECT_EQ(g.device_id(), 0u);
  EXPECT_EQ(g.byte_size(), 256u);

  auto dup = register_cuda("g", handle, 256);
  EXPECT_EQ(dup.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_EQ(dup.error_message(), "shared memory region 'g' already in manager");
  auto short_handle = register_cuda("x", handle.substr(0, 16), 256);
  EXPECT_EQ(short_handle.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(short_handle.error_message(),
            "failed to register CUDA shared memory region: 'x', the raw handle must be 64 "
            "bytes (a cudaIpcMemHandle_t), not 16");
  EXPECT_EQ(register_cuda("x", handle, 256, 1).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(register_cuda("", handle, 256).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  // A CUDA region is no system region.
  inference::SystemSharedMemoryStatusRequest sreq;
  sreq.set_name("g");
  inference::SystemSharedMemoryStatusResponse sres;
  EXPECT_EQ(stub_->SystemSharedMemoryStatus(client_context().get(), sreq, &sres).error_code(),
            grpc::StatusCode::NOT_FOUND);

  inference::CudaSharedMemoryUnregisterRequest ureq;
  inference::CudaSharedMemoryUnregisterResponse ures;
  ASSERT_TRUE(stub_->CudaSharedMemoryUnregister(client_context().get(), ureq, &ures).ok());
  res.Clear();
  EXPECT_EQ(status("g", res).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(memory_->open_handles(), 0);
}

TEST_F(grpc_cuda_shared_memory, infer_reads_inputs_from_and_writes_outputs_to_cuda_regions) {
  auto handle = memory_->export_allocation(256);
  auto values = iota16(0);
  std::memcpy(memory_->bytes(handle), values.data(), 64);
  ASSERT_TRUE(register_cuda("in", handle, 64).ok());
  auto out = memory_->export_allocation(256);
  ASSERT_TRUE(register_cuda("out", out, 256).ok());
  inference::ModelInferRequest req;
  req.set_model_name("simple");
  place_in_shared_memory(*add_input(req, "INPUT0", "INT32", {1, 16}), "in", 64);
  add_input(req, "INPUT1", "INT32", {1, 16});
  *req.add_raw_input_contents() = raw_bytes(std::vector<int32_t>(16, 1));
  auto* out0 = req.add_outputs();
  out0->set_name("OUTPUT0");
  place_in_shared_memory(*out0, "out", 64, 128);
  inference::ModelInferResponse res;
  auto st = stub_->ModelInfer(client_context().get(), req, &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(res.outputs_size(), 1);
  ASSERT_EQ(res.raw_output_contents_size(), 1);
  EXPECT_TRUE(res.raw_output_contents(0).empty());
  for (int k = 0; k < 16; ++k) {
    int32_t got;
    std::memcpy(&got, memory_->bytes(out) + 128 + 4 * k, 4);
    EXPECT_EQ(got, k + 1) << k;
  }
}

} // namespace
} // namespace conch::tests
