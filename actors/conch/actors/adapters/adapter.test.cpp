#include "conch/actors/adapters/adapter.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "conch/runtime/validation/model_reshapes.hpp"

using namespace conch::runtime;
using namespace conch::actors;

namespace {

// Version 1 of "m" with one FP32 input: `dims` on the wire, reshaped to
// `reshape` for the backend when it is not empty.
std::shared_ptr<const version_entry> version_one(std::vector<int64_t> dims,
                                                 std::vector<int64_t> reshape = {}) {
  auto c = std::make_shared<inference::ModelConfig>();
  c->set_name("m");
  auto* in = c->add_input();
  in->set_name("IN");
  in->set_data_type(inference::TYPE_FP32);
  for (auto d : dims)
    in->add_dims(d);
  for (auto d : reshape)
    in->mutable_reshape()->add_shape(d);
  auto* out = c->add_output();
  out->set_name("OUT");
  out->set_data_type(inference::TYPE_FP32);
  out->add_dims(4);
  auto entry = std::make_shared<version_entry>(1, model_state::ready, "", c);
  entry->reshapes = validation::model_reshapes(*c);
  return entry;
}

job_ptr job_with_input(shape_type shape) {
  inference_request r;
  r.model_name = "m";
  auto n = element_count(shape);
  r.inputs.push_back({"IN", data_type::fp32, shape, buffer::allocate(static_cast<size_t>(n) * 4)});
  return std::make_shared<inference_job>(std::move(r), [](inference_response&&) {});
}

} // namespace

TEST(accept_for, checks_and_reshapes_the_inputs_once_for_a_version) {
  auto v = version_one({4}, {2, 2});
  auto job = job_with_input({4});
  ASSERT_TRUE(accept_for(*v, job));
  EXPECT_EQ(job->request().inputs[0].shape, (shape_type{2, 2}));
  EXPECT_EQ(job->resolved_version(), 1);
  // The adapter finds the same version the direct lane accepted it for: no
  // second check, no second reshape.
  ASSERT_TRUE(accept_for(*v, job));
  EXPECT_EQ(job->request().inputs[0].shape, (shape_type{2, 2}));
}

TEST(accept_for, a_reload_of_the_same_version_number_checks_the_job_again) {
  // Accepted (and reshaped) for the old configuration of version 1...
  auto old_config = version_one({4}, {2, 2});
  auto job = job_with_input({4});
  ASSERT_TRUE(accept_for(*old_config, job));
  // ... then routed to the configuration a reload put in its place, which
  // takes 8 elements: refused, not passed on unchecked.
  auto reloaded = version_one({8});
  EXPECT_FALSE(accept_for(*reloaded, job));
  EXPECT_TRUE(job->completed());
}

TEST(accept_for, a_reload_that_still_fits_gets_the_clients_shapes_back_first) {
  auto old_config = version_one({4}, {2, 2});
  auto job = job_with_input({4});
  ASSERT_TRUE(accept_for(*old_config, job));
  // The new configuration takes the wire shape [4] as it is, no reshape: the
  // old reshape is undone before the check, and not applied again.
  auto reloaded = version_one({4});
  ASSERT_TRUE(accept_for(*reloaded, job));
  EXPECT_EQ(job->request().inputs[0].shape, (shape_type{4}));
  EXPECT_EQ(job->accepted_config(), reloaded->config.get());
}

TEST(accept_for, another_version_of_the_same_load_takes_the_job_as_it_is) {
  // The versions of one load share their configuration: a job the lane
  // accepted for version 1 that an adapter resolves to version 2 keeps its
  // inputs as they are and is marked as version 2's.
  auto v1 = version_one({4}, {2, 2});
  auto v2 = std::make_shared<version_entry>(2, model_state::ready, "", v1->config);
  v2->reshapes = v1->reshapes;
  auto job = job_with_input({4});
  ASSERT_TRUE(accept_for(*v1, job));
  ASSERT_TRUE(accept_for(*v2, job));
  EXPECT_EQ(job->resolved_version(), 2);
  EXPECT_EQ(job->request().inputs[0].shape, (shape_type{2, 2}));
}
