// The gRPC frontend's transport options through the generated C++ stub:
// compressed requests and responses, keepalive settings, forwarded request
// metadata, and the options start() refuses. (TLS with real certificates
// is tested from Python, which generates them with openssl.)

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/grpc_fixture.hpp"

namespace conch::tests {
namespace {

using runtime::errc;

class grpc_options_test : public grpc_fixture {
 protected:
  // identity_fp32 with `rows` x 16 copies of `value`.
  static inference::ModelInferRequest identity_request(int64_t rows, float value) {
    auto n = static_cast<size_t>(rows) * 16;
    inference::ModelInferRequest req;
    req.set_model_name("identity_fp32");
    auto* in = req.add_inputs();
    in->set_name("INPUT0");
    in->set_datatype("FP32");
    in->add_shape(rows);
    in->add_shape(16);
    std::vector<float> values(n, value);
    req.add_raw_input_contents(std::string(reinterpret_cast<const char*>(values.data()),
                                           values.size() * sizeof(float)));
    return req;
  }

  static void expect_identity(const inference::ModelInferResponse& res, size_t n, float value) {
    ASSERT_EQ(res.raw_output_contents_size(), 1);
    const auto& raw = res.raw_output_contents(0);
    ASSERT_EQ(raw.size(), n * sizeof(float));
    std::vector<float> out(n);
    std::memcpy(out.data(), raw.data(), raw.size());
    EXPECT_EQ(out, std::vector<float>(n, value));
  }

  // start() of a second frontend with `o`; the fixture's server serves.
  runtime::status start_with(const actors::grpc_options& o) {
    actors::grpc_frontend fe{*srv_, o};
    auto st = fe.start();
    if (st.is_ok())
      (void) fe.stop();
    return st;
  }

  // A file under the test's temporary directory holding `text`.
  std::string write_file(const std::string& name, const std::string& text) {
    auto dir = std::filesystem::temp_directory_path() / ("conch_grpc_options_" + name);
    std::ofstream{dir, std::ios::binary} << text;
    files_.push_back(dir);
    return dir.string();
  }

  void TearDown() override {
    grpc_fixture::TearDown();
    for (const auto& f : files_)
      std::filesystem::remove(f);
  }

  std::vector<std::filesystem::path> files_;
};

TEST_F(grpc_options_test, compressed_requests_and_compressed_responses_round_trip) {
  auto o = test_grpc_options();
  o.infer_compression_level = 3;
  start_all(example_options(), o);
  for (auto algorithm : {GRPC_COMPRESS_GZIP, GRPC_COMPRESS_DEFLATE, GRPC_COMPRESS_NONE}) {
    auto ctx = client_context();
    ctx->set_compression_algorithm(algorithm);
    inference::ModelInferResponse res;
    auto st = stub_->ModelInfer(ctx.get(), identity_request(64, 2.5f), &res);
    ASSERT_TRUE(st.ok()) << algorithm << ": " << st.error_message();
    expect_identity(res, 64 * 16, 2.5f);
  }
}

TEST_F(grpc_options_test, keepalive_and_connection_age_settings_serve_calls) {
  auto o = test_grpc_options();
  o.keepalive_time_ms = 1000;
  o.keepalive_timeout_ms = 500;
  o.keepalive_permit_without_calls = true;
  o.http2_max_pings_without_data = 0;
  o.http2_min_recv_ping_interval_without_data_ms = 100;
  o.http2_max_ping_strikes = 0;
  o.max_connection_age_ms = 600'000;
  o.max_connection_age_grace_ms = 1000;
  start_all(example_options(), o);
  inference::ModelInferResponse res;
  auto st = stub_->ModelInfer(client_context().get(), identity_request(1, 1.0f), &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  expect_identity(res, 16, 1.0f);
}

TEST_F(grpc_options_test, forwarded_metadata_with_a_reserved_name_is_refused) {
  auto o = test_grpc_options();
  o.forward_header_pattern = ".*";
  start_all(example_options(), o);
  // Every ordinary metadata key is forwarded, and the model ignores them.
  auto plain = client_context();
  plain->AddMetadata("x-trace", "abc");
  inference::ModelInferResponse res;
  auto st = stub_->ModelInfer(plain.get(), identity_request(1, 3.0f), &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  expect_identity(res, 16, 3.0f);

  auto reserved = client_context();
  reserved->AddMetadata("priority", "1");
  st = stub_->ModelInfer(reserved.get(), identity_request(1, 3.0f), &res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "Header 'priority' is reserved");

  // In a stream the error is written into the stream.
  auto stream_ctx = client_context();
  stream_ctx->AddMetadata("sequence_id", "7");
  auto stream = stub_->ModelStreamInfer(stream_ctx.get());
  ASSERT_TRUE(stream->Write(identity_request(1, 3.0f)));
  inference::ModelStreamInferResponse answer;
  ASSERT_TRUE(stream->Read(&answer));
  EXPECT_EQ(answer.error_message(), "Header 'sequence_id' is reserved");
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(grpc_options_test, metadata_outside_the_pattern_is_not_checked) {
  auto o = test_grpc_options();
  o.forward_header_pattern = "^x-";
  start_all(example_options(), o);
  auto ctx = client_context();
  ctx->AddMetadata("priority", "1");
  ctx->AddMetadata("x-tenant", "blue");
  inference::ModelInferResponse res;
  auto st = stub_->ModelInfer(ctx.get(), identity_request(1, 4.0f), &res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  expect_identity(res, 16, 4.0f);
}

TEST_F(grpc_options_test, start_refuses_options_that_cannot_work) {
  start_all();
  auto bad = [&](auto change) {
    auto o = test_grpc_options();
    change(o);
    return start_with(o);
  };
  auto st = bad([](auto& o) { o.infer_compression_level = 4; });
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("infer_compression_level"), std::string::npos);

  st = bad([](auto& o) { o.forward_header_pattern = "("; });
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("forward_header_pattern '('"), std::string::npos);

  st = bad([](auto& o) { o.keepalive_time_ms = -1; });
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_EQ(st.message(), "keepalive_time_ms must be >= 0, got -1");

  st = bad([](auto& o) { o.use_ssl = true; });
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("server_cert"), std::string::npos) << st.message();

  st = bad([](auto& o) {
    o.use_ssl = true;
    o.server_cert = "/nonexistent/server.pem";
    o.server_key = "/nonexistent/server.key";
  });
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("cannot read server_cert '/nonexistent/server.pem'"),
            std::string::npos)
    << st.message();

  auto not_pem = write_file("not_pem", "hello");
  st = bad([&](auto& o) {
    o.use_ssl = true;
    o.server_cert = not_pem;
    o.server_key = not_pem;
  });
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("holds no PEM data"), std::string::npos) << st.message();

  auto pem = write_file("pem", "-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n");
  st = bad([&](auto& o) {
    o.use_ssl = true;
    o.server_cert = pem;
    o.server_key = pem;
    o.use_mutual_auth = true;
  });
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("use_mutual_auth needs root_cert"), std::string::npos)
    << st.message();

  // Without use_ssl the TLS fields are not read.
  st = bad([](auto& o) { o.server_cert = "/nonexistent/server.pem"; });
  EXPECT_TRUE(st.is_ok()) << st.to_string();
}

} // namespace
} // namespace conch::tests
