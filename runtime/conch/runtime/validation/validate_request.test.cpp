#include "conch/runtime/validation/validate_request.hpp"

#include <gtest/gtest.h>

using namespace conch::runtime;
using conch::runtime::validation::validate_request;

namespace {

inference::ModelConfig make_config(int max_batch) {
  inference::ModelConfig c;
  c.set_name("m");
  c.set_max_batch_size(max_batch);
  auto* in = c.add_input();
  in->set_name("INPUT0");
  in->set_data_type(inference::TYPE_FP32);
  in->add_dims(16);
  auto* opt = c.add_input();
  opt->set_name("OPT");
  opt->set_data_type(inference::TYPE_INT32);
  opt->add_dims(-1);
  opt->set_optional(true);
  auto* out = c.add_output();
  out->set_name("OUTPUT0");
  out->set_data_type(inference::TYPE_FP32);
  out->add_dims(16);
  return c;
}

tensor fp32(shape_type shape) {
  auto n = element_count(shape);
  return {"INPUT0", data_type::fp32, shape, buffer::allocate(static_cast<size_t>(n) * 4)};
}

} // namespace

TEST(validate_request, accepts_a_matching_request) {
  inference_request r;
  r.inputs.push_back(fp32({2, 16}));
  EXPECT_TRUE(validate_request(r, make_config(8)));
  r.inputs[0] = fp32({16});
  EXPECT_TRUE(validate_request(r, make_config(0)));
}

TEST(validate_request, rejects_each_kind_of_mismatch) {
  auto cfg = make_config(8);
  auto expect_error = [&](inference_request r, const std::string& fragment) {
    auto st = validate_request(r, cfg);
    EXPECT_EQ(st.code(), errc::invalid_argument) << fragment;
    EXPECT_NE(st.message().find(fragment), std::string::npos) << st.message();
  };
  inference_request r;
  r.inputs.push_back(fp32({1, 15}));
  expect_error(r, "unexpected shape for input 'INPUT0'");
  r.inputs[0] = fp32({9, 16});
  expect_error(r, "batch-size must be <= 8");
  r.inputs[0] = fp32({1, 16});
  r.inputs[0].type = data_type::fp64;
  r.inputs[0].data = buffer::allocate(128);
  expect_error(r, "data-type is 'FP64', but model 'm' expects 'FP32'");
  r.inputs[0] = fp32({1, 16});
  r.inputs[0].name = "NOPE";
  expect_error(r, "unexpected inference input 'NOPE'");
  expect_error(inference_request{}, "expected 1 inputs but got 0");
  r.inputs[0] = fp32({1, 16});
  r.inputs[0].data = buffer::allocate(3);
  expect_error(r, "byte size");
  r.inputs[0] = fp32({1, 16});
  r.requested_outputs = {"OUTPUT9"};
  expect_error(r, "unexpected inference output 'OUTPUT9'");
  r.requested_outputs.clear();
  r.inputs.push_back(fp32({1, 16}));
  expect_error(r, "specified multiple times");
}

TEST(validate_request, optional_inputs_may_be_omitted_or_given) {
  auto cfg = make_config(4);
  inference_request r;
  r.inputs.push_back(fp32({1, 16}));
  EXPECT_TRUE(validate_request(r, cfg));
  r.inputs.push_back({"OPT", data_type::int32, {1, 3}, buffer::allocate(12)});
  EXPECT_TRUE(validate_request(r, cfg));
  r.inputs[1].shape = {2, 3};
  r.inputs[1].data = buffer::allocate(24);
  EXPECT_FALSE(validate_request(r, cfg));
}
