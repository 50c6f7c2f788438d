#include "conch/runtime/backends/common/job_output.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/backends/test_support/harness.hpp"

using namespace conch::runtime;
using namespace conch::runtime::backends;
using namespace conch::runtime::backends::test_support;

namespace {

/// Hands out a fixed buffer, whatever was asked.
class fixed_allocator final : public response_allocator {
 public:
  explicit fixed_allocator(buffer b) : buffer_(std::move(b)) {}
  result<buffer> allocate(const std::string&, size_t, memory_type, int64_t) override {
    return buffer_;
  }

 private:
  buffer buffer_;
};

job_ptr job_with(std::shared_ptr<response_allocator> allocator) {
  inference_request request;
  request.allocator = std::move(allocator);
  request.preferred_output_memory = memory_type::cpu_pinned;
  request.preferred_output_device = 3;
  return make_job(std::move(request), std::make_shared<response_log>());
}

} // namespace

TEST(job_output, allocates_from_the_request_allocator_with_its_preferences) {
  auto allocator = std::make_shared<recording_allocator>();
  auto job = job_with(allocator);
  auto out = common::allocate_output(*job, "OUT", data_type::int32, {2}, 8);
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_EQ(out->name, "OUT");
  EXPECT_EQ(out->type, data_type::int32);
  EXPECT_EQ(out->shape, (shape_type{2}));
  EXPECT_EQ(out->data.size(), 8u);
  EXPECT_EQ(allocator->names, (std::vector<std::string>{"OUT"}));
  EXPECT_EQ(allocator->types, (std::vector<memory_type>{memory_type::cpu_pinned}));
  EXPECT_EQ(allocator->devices, (std::vector<int64_t>{3}));
  EXPECT_NE(job->times().output_start, 0u);
}

TEST(job_output, falls_back_to_host_memory_without_an_allocator) {
  auto job = job_with(nullptr);
  EXPECT_EQ(&common::output_allocator(job->request()), cpu_allocator::instance().get());
  auto out = common::allocate_output(*job, "OUT", data_type::uint8, {3}, 3);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->data.size(), 3u);
  EXPECT_TRUE(out->data.host_accessible());
}

TEST(job_output, a_larger_region_is_cut_to_the_output_size) {
  auto region = buffer::allocate(64);
  auto job = job_with(std::make_shared<fixed_allocator>(region));
  auto out = common::allocate_output(*job, "OUT", data_type::uint8, {4}, 4);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->data.data(), region.data());
  EXPECT_EQ(out->data.size(), 4u);
}

TEST(job_output, a_short_or_device_buffer_is_an_error) {
  auto small = job_with(std::make_shared<fixed_allocator>(buffer::allocate(2)));
  auto a = common::allocate_output(*small, "OUT", data_type::uint8, {4}, 4);
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().code(), errc::internal);

  auto host = buffer::allocate(16);
  buffer device{host.owner(), host.data(), host.size(), memory_type::gpu, 0};
  auto gpu = job_with(std::make_shared<fixed_allocator>(device));
  auto b = common::allocate_output(*gpu, "OUT", data_type::uint8, {4}, 4);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code(), errc::unsupported);
  EXPECT_NE(b.error().message().find("'OUT'"), std::string::npos);
}

TEST(job_output, a_cancelled_job_is_answered_cancelled) {
  auto log = std::make_shared<response_log>();
  auto job = make_job(inference_request{}, log);
  EXPECT_FALSE(common::fail_if_cancelled(*job));
  EXPECT_TRUE(log->responses.empty());
  job->cancel();
  EXPECT_TRUE(common::fail_if_cancelled(*job));
  ASSERT_EQ(log->responses.size(), 1u);
  EXPECT_EQ(log->responses[0].error, cancelled("request cancelled"));
  EXPECT_TRUE(log->responses[0].final);
}

TEST(job_output, input_end_is_stamped_once) {
  auto job = job_with(nullptr);
  common::mark_input_end(*job);
  auto first = job->times().input_end;
  EXPECT_NE(first, 0u);
  common::mark_input_end(*job);
  EXPECT_EQ(job->times().input_end, first);
}
