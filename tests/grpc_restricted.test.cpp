// Restricted protocol groups, client shared memory and max_inflight over
// the KServe gRPC frontend: a call to a restricted group (grpc.health.v1
// included) without the group's metadata gets UNAVAILABLE, and so does a
// request beyond max_inflight; shared memory is UNIMPLEMENTED unless the
// frontend allows it.

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/gate_backend.hpp"
#include "support/grpc_fixture.hpp"
#include "support/grpc_requests.hpp"
#include "support/shm_object.hpp"
#include "support/temp_repository.hpp"

namespace conch::tests {
namespace {

using stream_type
  = grpc::ClientReaderWriter<inference::ModelInferRequest, inference::ModelStreamInferResponse>;

inference::ModelInferRequest identity_request() {
  inference::ModelInferRequest req;
  req.set_model_name("identity_fp32");
  add_input(req, "INPUT0", "FP32", {1, 16});
  *req.add_raw_input_contents() = raw_bytes(std::vector<float>(16, 1.5f));
  return req;
}

// A client context carrying metadata `key: value`.
std::unique_ptr<grpc::ClientContext> with_metadata(const std::string& key,
                                                   const std::string& value) {
  auto ctx = client_context();
  ctx->AddMetadata(key, value);
  return ctx;
}

class grpc_restricted : public grpc_fixture {
 protected:
  void SetUp() override {
    auto grpc = test_grpc_options();
    grpc.restricted_features = {{"infer-key", "secret", {"inference", "shared-memory"}},
                                {"Admin-Key", "admin", {"model-repository", "health"}}};
    start_all(example_options(), grpc);
  }

  static void expect_restricted(const grpc::Status& st, const std::string& key) {
    EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE);
    EXPECT_EQ(st.error_message(), "This protocol is restricted, expecting header '" + key + "'");
  }
};

TEST_F(grpc_restricted, calls_without_the_metadata_are_unavailable) {
  const std::string infer_key = "triton-grpc-protocol-infer-key";
  const std::string admin_key = "triton-grpc-protocol-admin-key";
  inference::ModelInferResponse res;
  expect_restricted(stub_->ModelInfer(client_context().get(), identity_request(), &res),
                    infer_key);
  inference::SystemSharedMemoryStatusResponse shm;
  expect_restricted(stub_->SystemSharedMemoryStatus(client_context().get(), {}, &shm), infer_key);
  inference::ServerLiveResponse live;
  expect_restricted(stub_->ServerLive(client_context().get(), {}, &live), admin_key);
  inference::ModelReadyRequest ready_req;
  ready_req.set_name("simple");
  inference::ModelReadyResponse ready;
  expect_restricted(stub_->ModelReady(client_context().get(), ready_req, &ready), admin_key);
  inference::RepositoryIndexResponse index;
  expect_restricted(stub_->RepositoryIndex(client_context().get(), {}, &index), admin_key);
  // grpc.health.v1 is health too: no way around the group.
  grpc::health::v1::HealthCheckResponse health;
  expect_restricted(health_->Check(client_context().get(), {}, &health), admin_key);
  // The other group's metadata does not open this one; nor does a wrong value.
  expect_restricted(stub_->ServerLive(with_metadata(infer_key, "secret").get(), {}, &live),
                    admin_key);
  expect_restricted(
    stub_->ModelInfer(with_metadata(infer_key, "Secret").get(), identity_request(), &res),
    infer_key);
  // A stream ends at once.
  auto ctx = client_context();
  std::unique_ptr<stream_type> stream = stub_->ModelStreamInfer(ctx.get());
  inference::ModelStreamInferResponse message;
  EXPECT_FALSE(stream->Read(&message));
  expect_restricted(stream->Finish(), infer_key);
}

TEST_F(grpc_restricted, the_metadata_opens_the_group) {
  inference::ModelInferResponse res;
  auto st = stub_->ModelInfer(with_metadata("triton-grpc-protocol-infer-key", "secret").get(),
                              identity_request(), &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(res.outputs_size(), 1);
  inference::ServerLiveResponse live;
  st = stub_->ServerLive(with_metadata("triton-grpc-protocol-admin-key", "admin").get(), {},
                         &live);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(live.live());
  grpc::health::v1::HealthCheckResponse health;
  st = health_->Check(with_metadata("triton-grpc-protocol-admin-key", "admin").get(), {},
                      &health);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(health.status(), grpc::health::v1::HealthCheckResponse::SERVING);
  // Unrestricted groups need nothing.
  inference::ServerMetadataResponse meta;
  EXPECT_TRUE(stub_->ServerMetadata(client_context().get(), {}, &meta).ok());
  inference::ModelStatisticsResponse stats;
  EXPECT_TRUE(stub_->ModelStatistics(client_context().get(), {}, &stats).ok());
}

TEST_F(grpc_restricted, bad_options_fail_the_start) {
  auto expect_invalid = [this](actors::grpc_options o) {
    actors::grpc_frontend bad{*srv_, std::move(o)};
    auto st = bad.start();
    EXPECT_EQ(st.code(), runtime::errc::invalid_argument) << st.to_string();
  };
  auto o = test_grpc_options();
  o.restricted_features = {{"k", "v", {"nope"}}};
  expect_invalid(o);
  o.restricted_features = {{"k", "v", {"health"}}, {"k2", "v", {"health"}}};
  expect_invalid(o);
  o.restricted_features = {{"", "v", {"health"}}};
  expect_invalid(o);
  o.restricted_features = {};
  o.max_inflight = -1;
  expect_invalid(o);
  // The running frontend is untouched.
  inference::ServerMetadataResponse meta;
  EXPECT_TRUE(stub_->ServerMetadata(client_context().get(), {}, &meta).ok());
}

// -- client shared memory ----------------------------------------------------

const char* const shm_disabled =
  "Client shared memory is disabled. Start the server with '--allow-client-shm=true' to enable.";

void expect_shm_disabled(const grpc::Status& st) {
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(st.error_message(), shm_disabled);
}

class grpc_client_shm : public grpc_fixture {
 protected:
  void SetUp() override {
    auto grpc = test_grpc_options();
    grpc.allow_client_shm = false;
    start_all(example_options(), grpc);
  }
};

TEST(grpc_client_shm_default, is_denied) {
  EXPECT_FALSE(actors::grpc_options{}.allow_client_shm);
}

TEST_F(grpc_client_shm, register_and_unregister_are_refused_and_status_is_served) {
  shm_object object{64};
  ASSERT_TRUE(object.ok());
  inference::SystemSharedMemoryRegisterRequest reg;
  reg.set_name("r");
  reg.set_key(object.key());
  reg.set_byte_size(64);
  inference::SystemSharedMemoryRegisterResponse reg_res;
  expect_shm_disabled(stub_->SystemSharedMemoryRegister(client_context().get(), reg, &reg_res));
  inference::SystemSharedMemoryUnregisterResponse unreg_res;
  expect_shm_disabled(stub_->SystemSharedMemoryUnregister(client_context().get(), {}, &unreg_res));
  inference::CudaSharedMemoryRegisterRequest cuda;
  cuda.set_name("c");
  cuda.set_raw_handle(std::string(64, '\0'));
  cuda.set_byte_size(64);
  inference::CudaSharedMemoryRegisterResponse cuda_res;
  expect_shm_disabled(stub_->CudaSharedMemoryRegister(client_context().get(), cuda, &cuda_res));
  inference::CudaSharedMemoryUnregisterResponse cuda_unreg;
  expect_shm_disabled(stub_->CudaSharedMemoryUnregister(client_context().get(), {}, &cuda_unreg));
  inference::SystemSharedMemoryStatusResponse status;
  EXPECT_TRUE(stub_->SystemSharedMemoryStatus(client_context().get(), {}, &status).ok());
  EXPECT_EQ(status.regions_size(), 0);
}

TEST_F(grpc_client_shm, a_region_registered_elsewhere_is_not_reachable_here) {
  // Another frontend of the same server allows client shared memory.
  actors::grpc_frontend other{*srv_, test_grpc_options()};
  ASSERT_TRUE(other.start());
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(other.port()),
                                     grpc::InsecureChannelCredentials());
  auto open = inference::GRPCInferenceService::NewStub(channel);
  shm_object object{64};
  ASSERT_TRUE(object.ok());
  inference::SystemSharedMemoryRegisterRequest reg;
  reg.set_name("in");
  reg.set_key(object.key());
  reg.set_byte_size(64);
  inference::SystemSharedMemoryRegisterResponse reg_res;
  auto registered = open->SystemSharedMemoryRegister(client_context().get(), reg, &reg_res);
  ASSERT_TRUE(registered.ok()) << registered.error_message();

  inference::ModelInferRequest by_region;
  by_region.set_model_name("identity_fp32");
  place_in_shared_memory(*add_input(by_region, "INPUT0", "FP32", {1, 16}), "in", 64);
  inference::ModelInferResponse res;
  expect_shm_disabled(stub_->ModelInfer(client_context().get(), by_region, &res));
  auto into_region = identity_request();
  auto* output = into_region.add_outputs();
  output->set_name("OUTPUT0");
  place_in_shared_memory(*output, "in", 64);
  expect_shm_disabled(stub_->ModelInfer(client_context().get(), into_region, &res));
  // In a stream, the request gets the error and the stream goes on.
  auto ctx = client_context();
  std::unique_ptr<stream_type> stream = stub_->ModelStreamInfer(ctx.get());
  ASSERT_TRUE(stream->Write(by_region));
  inference::ModelStreamInferResponse message;
  ASSERT_TRUE(stream->Read(&message));
  EXPECT_EQ(message.error_message(), shm_disabled);
  ASSERT_TRUE(stream->WritesDone());
  EXPECT_TRUE(stream->Finish().ok());
  // The frontend that allows it serves the same request.
  auto served = open->ModelInfer(client_context().get(), by_region, &res);
  EXPECT_TRUE(served.ok()) << served.error_message();
  inference::SystemSharedMemoryUnregisterResponse unreg_res;
  EXPECT_TRUE(open->SystemSharedMemoryUnregister(client_context().get(), {}, &unreg_res).ok());
}

class grpc_gated : public grpc_fixture {
 protected:
  void SetUp() override {
    gate_ = std::make_shared<gate>();
    register_gate_backend("gate_grpc", gate_);
    repo_.add_model("held", gate_config("held", "gate_grpc", 0));
    auto grpc = test_grpc_options();
    grpc.max_inflight = 1;
    start_all(options_for(repo_.str()), grpc);
  }

  void TearDown() override {
    gate_->open();
    grpc_fixture::TearDown();
  }

  static inference::ModelInferRequest held_request(const std::string& id) {
    inference::ModelInferRequest req;
    req.set_model_name("held");
    req.set_id(id);
    add_input(req, "INPUT0", "FP32", {4});
    *req.add_raw_input_contents() = raw_bytes(std::vector<float>{1, 2, 3, 4});
    return req;
  }

  std::shared_ptr<gate> gate_;
  temp_repository repo_;
};

TEST_F(grpc_gated, beyond_max_inflight_calls_are_unavailable) {
  auto first_ctx = client_context();
  auto first_req = held_request("first");
  inference::ModelInferResponse first_res;
  std::promise<grpc::Status> first_done;
  stub_->async()->ModelInfer(first_ctx.get(), &first_req, &first_res,
                             [&](grpc::Status st) { first_done.set_value(std::move(st)); });
  ASSERT_TRUE(gate_->wait_entered(1));

  inference::ModelInferResponse res;
  auto busy = stub_->ModelInfer(client_context().get(), held_request("second"), &res);
  EXPECT_EQ(busy.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(busy.error_message(), "the server is busy: too many requests in flight");
  // In a stream, the request gets an in-stream error and the stream goes on.
  auto ctx = client_context();
  std::unique_ptr<stream_type> stream = stub_->ModelStreamInfer(ctx.get());
  ASSERT_TRUE(stream->Write(held_request("streamed")));
  inference::ModelStreamInferResponse message;
  ASSERT_TRUE(stream->Read(&message));
  EXPECT_EQ(message.error_message(), "the server is busy: too many requests in flight");
  EXPECT_EQ(message.infer_response().id(), "streamed");
  // Calls that do not wait on the server are not counted.
  inference::ServerLiveResponse live;
  EXPECT_TRUE(stub_->ServerLive(client_context().get(), {}, &live).ok());

  gate_->open();
  auto done = first_done.get_future();
  ASSERT_EQ(done.wait_for(std::chrono::seconds{30}), std::future_status::ready);
  auto first = done.get();
  EXPECT_TRUE(first.ok()) << first.error_message();
  // The place is free again, for a stream request too.
  ASSERT_TRUE(stream->Write(held_request("again")));
  ASSERT_TRUE(stream->Read(&message));
  EXPECT_EQ(message.error_message(), "");
  EXPECT_EQ(message.infer_response().id(), "again");
  ASSERT_TRUE(stream->WritesDone());
  EXPECT_TRUE(stream->Finish().ok());
  auto st = stub_->ModelInfer(client_context().get(), held_request("third"), &res);
  EXPECT_TRUE(st.ok()) << st.error_message();
}

} // namespace
} // namespace conch::tests
