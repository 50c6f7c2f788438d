// ModelInfer through the KServe gRPC frontend with the generated C++ stub:
// raw and typed input contents, raw output contents, and the errors.

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/grpc_fixture.hpp"

namespace conch::tests {
namespace {

template <class T>
std::string raw_bytes(const std::vector<T>& values) {
  std::string s(values.size() * sizeof(T), '\0');
  std::memcpy(s.data(), values.data(), s.size());
  return s;
}

template <class T>
std::vector<T> from_raw(const std::string& raw) {
  std::vector<T> v(raw.size() / sizeof(T));
  std::memcpy(v.data(), raw.data(), v.size() * sizeof(T));
  return v;
}

inference::ModelInferRequest::InferInputTensor* add_input(inference::ModelInferRequest& r,
                                                          const std::string& name,
                                                          const std::string& type,
                                                          std::vector<int64_t> shape) {
  auto* in = r.add_inputs();
  in->set_name(name);
  in->set_datatype(type);
  for (auto d : shape)
    in->add_shape(d);
  return in;
}

std::vector<int32_t> iota(int32_t from) {
  std::vector<int32_t> v(16);
  for (int i = 0; i < 16; ++i)
    v[i] = from + i;
  return v;
}

class grpc_infer : public grpc_fixture {
 protected:
  grpc::Status infer(const inference::ModelInferRequest& req, inference::ModelInferResponse& res) {
    return stub_->ModelInfer(client_context().get(), req, &res);
  }

  inference::ModelInferRequest simple_request() {
    inference::ModelInferRequest req;
    req.set_model_name("simple");
    req.set_id("req-1");
    add_input(req, "INPUT0", "INT32", {1, 16});
    add_input(req, "INPUT1", "INT32", {1, 16});
    return req;
  }

  // Checks simple's answer to INPUT0 = 0..15 and INPUT1 = 1 everywhere.
  void expect_simple_answer(const inference::ModelInferResponse& res) {
    EXPECT_EQ(res.model_name(), "simple");
    EXPECT_EQ(res.model_version(), "1");
    EXPECT_EQ(res.id(), "req-1");
    ASSERT_EQ(res.outputs_size(), 2);
    ASSERT_EQ(res.raw_output_contents_size(), 2);
    for (int i = 0; i < 2; ++i) {
      const auto& out = res.outputs(i);
      EXPECT_EQ(out.datatype(), "INT32");
      ASSERT_EQ(out.shape_size(), 2);
      EXPECT_EQ(out.shape(1), 16);
      auto values = from_raw<int32_t>(res.raw_output_contents(i));
      ASSERT_EQ(values.size(), 16u);
      int sign = out.name() == "OUTPUT0" ? 1 : -1;
      for (int k = 0; k < 16; ++k)
        EXPECT_EQ(values[k], k + sign) << out.name() << "[" << k << "]";
    }
  }
};

TEST_F(grpc_infer, identity_fp32_with_raw_contents) {
  start_all();
  inference::ModelInferRequest req;
  req.set_model_name("identity_fp32");
  add_input(req, "INPUT0", "FP32", {1, 16});
  std::vector<float> data(16);
  for (int i = 0; i < 16; ++i)
    data[i] = 0.5f * static_cast<float>(i);
  *req.add_raw_input_contents() = raw_bytes(data);
  inference::ModelInferResponse res;
  auto st = infer(req, res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  EXPECT_EQ(res.model_name(), "identity_fp32");
  EXPECT_EQ(res.model_version(), "1");
  ASSERT_EQ(res.outputs_size(), 1);
  ASSERT_EQ(res.raw_output_contents_size(), 1);
  EXPECT_EQ(res.outputs(0).name(), "OUTPUT0");
  EXPECT_EQ(res.outputs(0).datatype(), "FP32");
  EXPECT_EQ(from_raw<float>(res.raw_output_contents(0)), data);
}

TEST_F(grpc_infer, identity_fp32_with_typed_contents) {
  start_all();
  inference::ModelInferRequest req;
  req.set_model_name("identity_fp32");
  req.set_model_version("1");
  auto* in = add_input(req, "INPUT0", "FP32", {1, 16});
  std::vector<float> data(16);
  for (int i = 0; i < 16; ++i) {
    data[i] = -1.25f * static_cast<float>(i);
    in->mutable_contents()->add_fp32_contents(data[i]);
  }
  inference::ModelInferResponse res;
  auto st = infer(req, res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(res.raw_output_contents_size(), 1);
  EXPECT_FALSE(res.outputs(0).has_contents());
  EXPECT_EQ(from_raw<float>(res.raw_output_contents(0)), data);
}

TEST_F(grpc_infer, simple_with_raw_contents) {
  start_all();
  auto req = simple_request();
  *req.add_raw_input_contents() = raw_bytes(iota(0));
  *req.add_raw_input_contents() = raw_bytes(std::vector<int32_t>(16, 1));
  inference::ModelInferResponse res;
  auto st = infer(req, res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  expect_simple_answer(res);
}

TEST_F(grpc_infer, simple_with_typed_contents_and_one_requested_output) {
  start_all();
  auto req = simple_request();
  for (auto v : iota(0))
    req.mutable_inputs(0)->mutable_contents()->add_int_contents(v);
  for (int i = 0; i < 16; ++i)
    req.mutable_inputs(1)->mutable_contents()->add_int_contents(1);
  inference::ModelInferResponse res;
  auto st = infer(req, res);
  ASSERT_TRUE(st.ok()) << st.error_message();
  expect_simple_answer(res);
  req.add_outputs()->set_name("OUTPUT1");
  inference::ModelInferResponse one;
  st = infer(req, one);
  ASSERT_TRUE(st.ok()) << st.error_message();
  ASSERT_EQ(one.outputs_size(), 1);
  EXPECT_EQ(one.outputs(0).name(), "OUTPUT1");
  EXPECT_EQ(one.raw_output_contents_size(), 1);
}

TEST_F(grpc_infer, unknown_model_is_not_found) {
  start_all();
  inference::ModelInferRequest req;
  req.set_model_name("nope");
  inference::ModelInferResponse res;
  auto st = infer(req, res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(st.error_message().find("nope"), std::string::npos) << st.error_message();
}

TEST_F(grpc_infer, wrong_raw_size_is_invalid_argument) {
  start_all();
  auto req = simple_request();
  *req.add_raw_input_contents() = raw_bytes(iota(0));
  *req.add_raw_input_contents() = raw_bytes(std::vector<int32_t>(15, 1));
  inference::ModelInferResponse res;
  auto st = infer(req, res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(st.error_message().find("INPUT1"), std::string::npos) << st.error_message();
}

TEST_F(grpc_infer, missing_raw_input_is_invalid_argument) {
  start_all();
  auto req = simple_request();
  *req.add_raw_input_contents() = raw_bytes(iota(0));
  inference::ModelInferResponse res;
  auto st = infer(req, res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(st.error_message(), "unable to find data for input tensor 'INPUT1'");
}

TEST_F(grpc_infer, decoupled_model_is_unimplemented) {
  start_all();
  inference::ModelInferRequest req;
  req.set_model_name("repeat_int32");
  auto* in = add_input(req, "IN", "INT32", {2});
  in->mutable_contents()->add_int_contents(1);
  in->mutable_contents()->add_int_contents(2);
  inference::ModelInferResponse res;
  auto st = infer(req, res);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(st.error_message(),
            "ModelInfer RPC doesn't support models with decoupled transaction policy");
}

} // namespace
} // namespace conch::tests
