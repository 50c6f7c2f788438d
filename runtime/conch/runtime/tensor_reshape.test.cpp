#include "conch/runtime/tensor_reshape.hpp"

#include <gtest/gtest.h>

using namespace conch::runtime;

namespace {

tensor shaped(std::string name, shape_type shape) {
  return tensor{std::move(name), data_type::fp32, std::move(shape), {}};
}

} // namespace

TEST(tensor_reshape, converts_fixed_shapes_and_keeps_the_batch_dimension) {
  EXPECT_EQ(tensor_reshapes::convert({3, 224, 224}, false, {3, 224, 224}, {1, 3, 224, 224}),
            (shape_type{1, 3, 224, 224}));
  EXPECT_EQ(tensor_reshapes::convert({8, 2, 2}, true, {2, 2}, {4}), (shape_type{8, 4}));
  EXPECT_EQ(tensor_reshapes::convert({8, 4}, true, {4}, {2, 2}), (shape_type{8, 2, 2}));
}

TEST(tensor_reshape, carries_variable_sizes_over_in_order) {
  // dims [-1, 2, -1] as reshape [-1, -1, 2]: the two wildcards keep their order.
  EXPECT_EQ(tensor_reshapes::convert({5, 2, 7}, false, {-1, 2, -1}, {-1, -1, 2}),
            (shape_type{5, 7, 2}));
  EXPECT_EQ(tensor_reshapes::convert({3, 6, 4}, true, {-1, 4}, {2, -1, 2}),
            (shape_type{3, 2, 6, 2}));
}

TEST(tensor_reshape, an_empty_reshape_is_a_scalar_per_batch_entry) {
  EXPECT_EQ(tensor_reshapes::convert({4, 1}, true, {1}, {}), (shape_type{4}));
  EXPECT_EQ(tensor_reshapes::convert({4}, true, {}, {1}), (shape_type{4, 1}));
}

TEST(tensor_reshape, inputs_and_outputs_go_between_dims_and_reshape) {
  tensor_reshapes r{true};
  r.add_input("IN", {{2, 2}, {4}});
  r.add_output("OUT", {{2, 2}, {4}});
  std::vector<tensor> inputs{shaped("IN", {3, 2, 2}), shaped("OTHER", {3, 2, 2})};
  r.to_backend(inputs);
  EXPECT_EQ(inputs[0].shape, (shape_type{3, 4}));
  EXPECT_EQ(inputs[1].shape, (shape_type{3, 2, 2}));
  std::vector<tensor> outputs{shaped("OUT", {3, 4})};
  ASSERT_TRUE(r.to_client(outputs, "m"));
  EXPECT_EQ(outputs[0].shape, (shape_type{3, 2, 2}));
}

TEST(tensor_reshape, an_output_already_in_its_dims_stays_and_any_other_shape_is_an_error) {
  tensor_reshapes r{false};
  r.add_output("OUT", {{1000}, {1, 1000, 1, 1}});
  std::vector<tensor> outputs{shaped("OUT", {1000})};
  ASSERT_TRUE(r.to_client(outputs, "densenet"));
  EXPECT_EQ(outputs[0].shape, (shape_type{1000}));
  outputs[0].shape = {10, 100};
  auto st = r.to_client(outputs, "densenet");
  EXPECT_EQ(st.code(), errc::internal);
  EXPECT_EQ(st.message(), "output 'OUT' of model 'densenet' has shape [10,100], which is neither "
                          "its reshape [1,1000,1,1] nor its dims [1000]");
}
