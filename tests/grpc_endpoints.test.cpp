// The KServe gRPC frontend's health, metadata, configuration and statistics
// RPCs, and grpc.health.v1 Check, through the generated C++ stub.

#include <gtest/gtest.h>

#include "support/grpc_fixture.hpp"

namespace conch::tests {
namespace {

class grpc_endpoints : public grpc_fixture {};

TEST_F(grpc_endpoints, server_live_and_ready) {
  start_all();
  inference::ServerLiveResponse live;
  auto st = stub_->ServerLive(client_context().get(), {}, &live);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(live.live());
  inference::ServerReadyResponse ready;
  st = stub_->ServerReady(client_context().get(), {}, &ready);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(ready.ready());
}

TEST_F(grpc_endpoints, model_ready_and_unknown_model) {
  start_all();
  inference::ModelReadyRequest req;
  req.set_name("simple");
  inference::ModelReadyResponse res;
  auto st = stub_->ModelReady(client_context().get(), req, &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_TRUE(res.ready());
  req.set_name("nope");
  st = stub_->ModelReady(client_context().get(), req, &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  req.set_name("simple");
  req.set_version("x");
  st = stub_->ModelReady(client_context().get(), req, &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "version should be an integral value > 0");
}

TEST_F(grpc_endpoints, server_metadata) {
  start_all();
  inference::ServerMetadataResponse res;
  auto st = stub_->ServerMetadata(client_context().get(), {}, &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  auto expected = srv_->metadata();
  EXPECT_EQ(res.name(), expected.name);
  EXPECT_EQ(res.version(), expected.version);
  EXPECT_FALSE(res.extensions().empty());
}

TEST_F(grpc_endpoints, model_metadata) {
  start_all();
  inference::ModelMetadataRequest req;
  req.set_name("identity_fp32");
  inference::ModelMetadataResponse res;
  auto st = stub_->ModelMetadata(client_context().get(), req, &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(res.name(), "identity_fp32");
  ASSERT_EQ(res.versions_size(), 1);
  EXPECT_EQ(res.versions(0), "1");
  ASSERT_EQ(res.inputs_size(), 1);
  EXPECT_EQ(res.inputs(0).name(), "INPUT0");
  EXPECT_EQ(res.inputs(0).datatype(), "FP32");
  ASSERT_EQ(res.inputs(0).shape_size(), 2);
  EXPECT_EQ(res.inputs(0).shape(0), -1);
  EXPECT_EQ(res.inputs(0).shape(1), 16);
  ASSERT_EQ(res.outputs_size(), 1);
  EXPECT_EQ(res.outputs(0).name(), "OUTPUT0");
  req.set_name("nope");
  st = stub_->ModelMetadata(client_context().get(), req, &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(grpc_endpoints, model_config) {
  start_all();
  inference::ModelConfigRequest req;
  req.set_name("simple");
  inference::ModelConfigResponse res;
  auto st = stub_->ModelConfig(client_context().get(), req, &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(res.config().name(), "simple");
  EXPECT_EQ(res.config().backend(), "add_sub");
  EXPECT_EQ(res.config().max_batch_size(), 8);
  ASSERT_EQ(res.config().input_size(), 2);
  EXPECT_EQ(res.config().input(1).name(), "INPUT1");
  EXPECT_EQ(res.config().input(1).data_type(), inference::TYPE_INT32);
  req.set_name("nope");
  st = stub_->ModelConfig(client_context().get(), req, &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(grpc_endpoints, model_statistics) {
  start_all();
  inference::ModelStatisticsRequest req;
  req.set_name("simple");
  inference::ModelStatisticsResponse res;
  auto st = stub_->ModelStatistics(client_context().get(), req, &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(res.model_stats_size(), 1);
  EXPECT_EQ(res.model_stats(0).name(), "simple");
  EXPECT_EQ(res.model_stats(0).version(), "1");
  EXPECT_EQ(res.model_stats(0).inference_stats().success().count(), 0u);
  inference::ModelStatisticsResponse all;
  st = stub_->ModelStatistics(client_context().get(), {}, &all);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(all.model_stats_size(), 3);
}

TEST_F(grpc_endpoints, health_check_serves_while_ready) {
  start_all();
  grpc::health::v1::HealthCheckResponse res;
  auto st = health_->Check(client_context().get(), {}, &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(res.status(), grpc::health::v1::HealthCheckResponse::SERVING);
}

} // namespace
} // namespace conch::tests
