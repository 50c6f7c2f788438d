#include "conch/transports/http/cloud/sagemaker_mme.hpp"

#include <gtest/gtest.h>

namespace conch::transports::http::cloud {
namespace {

TEST(sagemaker_mme, out_of_memory_reads_the_texts_triton_answers_507_for) {
  EXPECT_TRUE(out_of_memory("CUDA out of memory. Tried to allocate 2.00 GiB"));
  EXPECT_TRUE(out_of_memory("load failed: MemoryError"));
  EXPECT_TRUE(out_of_memory("write: No space left on device"));
  EXPECT_FALSE(out_of_memory("failed to load 'm': no version is available"));
}

TEST(sagemaker_models, add_find_take_and_list_by_name) {
  sagemaker_models models;
  models.add({"b", "/repo/b", "b"});
  models.add({"a", "/repo/a", "target"});
  ASSERT_TRUE(models.find("a"));
  EXPECT_EQ(models.find("a")->target, "target");
  EXPECT_FALSE(models.find("c"));
  auto all = models.list();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "a");
  auto taken = models.take("a");
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->repository, "/repo/a");
  EXPECT_FALSE(models.take("a"));
  EXPECT_EQ(models.list().size(), 1u);
}

} // namespace
} // namespace conch::transports::http::cloud
