// A model configuration's `reshape`: requests arrive in the shape of `dims`,
// the backend sees its inputs reshaped, and its outputs go back in `dims`.
// The identity backend echoes the shape it was given, which shows what the
// backend saw.

#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/response_collector.hpp"
#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using runtime::data_type;
using runtime::errc;
using runtime::shape_type;

// An identity model: INPUT0 -> OUTPUT0, FP32, each tensor with its own dims
// and reshape (none when empty).
std::string identity_config(const std::string& name, int max_batch_size,
                            const std::string& in_dims, const std::string& in_reshape,
                            const std::string& out_dims, const std::string& out_reshape,
                            const std::string& extra = "") {
  auto reshape = [](const std::string& r) {
    return r.empty() ? std::string{} : " reshape: { shape: " + r + " }";
  };
  return "name: \"" + name + "\"\nbackend: \"identity\"\nmax_batch_size: "
         + std::to_string(max_batch_size) + "\n"
         "input [ { name: \"INPUT0\" data_type: TYPE_FP32 dims: " + in_dims + reshape(in_reshape)
         + " } ]\n"
         "output [ { name: \"OUTPUT0\" data_type: TYPE_FP32 dims: " + out_dims
         + reshape(out_reshape) + " } ]\n" + extra;
}

std::vector<float> counting(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(i) + 0.5f;
  return v;
}

class reshape : public server_fixture {
 protected:
  void SetUp() override {
    repo_.add_model("in_only", identity_config("in_only", 8, "[ 2, 2 ]", "[ 4 ]", "[ 4 ]", ""));
    repo_.add_model("both_ways",
                    identity_config("both_ways", 8, "[ 2, 2 ]", "[ 4 ]", "[ 2, 2 ]", "[ 4 ]"));
    repo_.add_model("batched_both_ways",
                    identity_config("batched_both_ways", 8, "[ 2, 2 ]", "[ 4 ]", "[ 2, 2 ]",
                                    "[ 4 ]", "dynamic_batching { max_queue_delay_microseconds: "
                                             "20000 }\n"));
    // densenet_onnx's form: no batching, the backend wants a leading 1.
    repo_.add_model("unbatched", identity_config("unbatched", 0, "[ 3, 4 ]", "[ 1, 3, 4 ]",
                                                 "[ 3, 4 ]", "[ 1, 3, 4 ]"));
    repo_.add_model("variable", identity_config("variable", 0, "[ -1 ]", "[ -1, 1 ]", "[ -1, 1 ]",
                                                ""));
    repo_.add_model("scalar", identity_config("scalar", 8, "[ 1 ]", "[ ]", "[ 1 ]", "[ ]"));
    // On the direct lane: one instance that requests from several threads
    // find leased now and then, and then take the actor path.
    repo_.add_model("lane", identity_config("lane", 0, "[ 2, 2 ]", "[ 4 ]", "[ 2, 2 ]", "[ 4 ]"));
    // The output's reshape names a shape the identity never produces.
    repo_.add_model("wrong_output",
                    identity_config("wrong_output", 0, "[ -1 ]", "", "[ 2, 2 ]", "[ 4 ]"));
    auto s = start(options_for(repo_.str()));
    ASSERT_TRUE(s) << s.error().to_string();
    srv_ = *s;
  }

  runtime::inference_response infer(const std::string& model, shape_type shape) {
    auto n = static_cast<size_t>(runtime::element_count(shape));
    return infer_sync(*srv_, make_request(model, "r", {make_tensor("INPUT0", data_type::fp32,
                                                                   shape, counting(n))}));
  }

  // Expects OUTPUT0 of shape `shape` holding the request's values.
  void expect_output(const runtime::inference_response& r, const shape_type& shape) {
    ASSERT_TRUE(r.error.is_ok()) << r.error.to_string();
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].shape, shape);
    EXPECT_EQ(values_of<float>(r.outputs[0]),
              counting(static_cast<size_t>(runtime::element_count(shape))));
  }

  temp_repository repo_;
  std::optional<actors::server> srv_;
};

TEST_F(reshape, the_backend_sees_an_input_in_its_reshape_with_the_batch_dimension) {
  expect_output(infer("in_only", {3, 2, 2}), {3, 4});
}

TEST_F(reshape, an_output_goes_back_in_its_dims) {
  expect_output(infer("both_ways", {3, 2, 2}), {3, 2, 2});
  expect_output(infer("unbatched", {3, 4}), {3, 4});
}

TEST_F(reshape, requests_of_a_batching_model_each_get_their_own_shape_back) {
  runtime::inference_response a, b;
  std::thread other([&] { a = infer("batched_both_ways", {2, 2, 2}); });
  b = infer("batched_both_ways", {1, 2, 2});
  other.join();
  expect_output(a, {2, 2, 2});
  expect_output(b, {1, 2, 2});
}

TEST_F(reshape, a_request_that_finds_the_lane_busy_is_reshaped_once) {
  constexpr size_t threads = 4, each = 500;
  std::vector<std::vector<runtime::inference_response>> out(threads);
  std::vector<std::thread> senders;
  for (size_t i = 0; i < threads; ++i)
    senders.emplace_back([&, i] {
      for (size_t k = 0; k < each; ++k)
      {
        // placement::may_run_here: the path the HTTP loops and gRPC handlers take.
        response_collector c;
        srv_->submit(make_request("lane", "r",
                                  {make_tensor("INPUT0", data_type::fp32, {2, 2}, counting(4))}),
                     c.callback(), conch::runtime::inprocess_may_run_here);
        c.wait_finals(1);
        out[i].push_back(c.final_response());
      }
    });
  for (auto& t : senders)
    t.join();
  size_t failed = 0;
  for (const auto& batch : out)
    for (const auto& r : batch)
      if (!r.error.is_ok() || r.outputs.size() != 1 || r.outputs[0].shape != shape_type{2, 2})
        ++failed;
  EXPECT_EQ(failed, 0u) << (failed ? out[0][0].error.to_string() : "");
}

TEST_F(reshape, variable_sizes_carry_over) {
  expect_output(infer("variable", {5}), {5, 1});
  expect_output(infer("variable", {2}), {2, 1});
}

TEST_F(reshape, an_empty_reshape_is_one_value_per_batch_entry) {
  expect_output(infer("scalar", {4, 1}), {4, 1});
}

TEST_F(reshape, the_request_is_still_checked_against_dims) {
  auto r = infer("both_ways", {3, 4});
  EXPECT_EQ(r.error.code(), errc::invalid_argument);
  EXPECT_NE(r.error.message().find("unexpected shape for input 'INPUT0' for model "
                                   "'both_ways'. Expected [-1,2,2], got [3,4]"),
            std::string::npos)
    << r.error.message();
}

TEST_F(reshape, an_output_in_neither_shape_is_an_internal_error) {
  auto r = infer("wrong_output", {3});
  EXPECT_EQ(r.error.code(), errc::internal);
  EXPECT_EQ(r.error.message(), "output 'OUTPUT0' of model 'wrong_output' has shape [3], which is "
                               "neither its reshape [4] nor its dims [2,2]");
  expect_output(infer("wrong_output", {4}), {2, 2});
}

} // namespace
} // namespace conch::tests
