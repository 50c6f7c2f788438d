#include "conch/runtime/batching/job_batch_size.hpp"

#include <gtest/gtest.h>

using namespace conch::runtime;
using namespace conch::runtime::batching;

namespace {

job_ptr job_with_shapes(std::vector<shape_type> shapes) {
  inference_request req;
  for (auto& shape : shapes) {
    tensor t;
    t.name = "IN" + std::to_string(req.inputs.size());
    t.type = data_type::fp32;
    t.shape = std::move(shape);
    req.inputs.push_back(std::move(t));
  }
  return std::make_shared<inference_job>(std::move(req), [](inference_response&&) {});
}

} // namespace

TEST(job_batch_size, is_one_when_the_model_does_not_batch) {
  EXPECT_EQ(job_batch_size(*job_with_shapes({{5, 3}}), 0), 1u);
}

TEST(job_batch_size, is_the_first_dimension_of_the_first_input) {
  EXPECT_EQ(job_batch_size(*job_with_shapes({{5, 3}, {2, 3}}), 8), 5u);
  EXPECT_EQ(job_batch_size(*job_with_shapes({{1}}), 8), 1u);
}

TEST(job_batch_size, counts_missing_or_degenerate_shapes_as_one) {
  EXPECT_EQ(job_batch_size(*job_with_shapes({}), 8), 1u);
  EXPECT_EQ(job_batch_size(*job_with_shapes({{}}), 8), 1u);
  EXPECT_EQ(job_batch_size(*job_with_shapes({{0, 4}}), 8), 1u);
}
