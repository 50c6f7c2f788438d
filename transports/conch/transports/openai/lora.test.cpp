#include "conch/transports/openai/lora.hpp"

#include <gtest/gtest.h>

namespace conch::transports::openai {
namespace {

TEST(lora, a_name_splits_into_exactly_two_parts) {
  auto n = split_model_name("gemma_lora_doll", "_lora_");
  EXPECT_EQ(n.model, "gemma");
  EXPECT_EQ(n.adapter, "doll");
  for (const char* whole : {"gemma", "_lora_doll", "gemma_lora_", "a_lora_b_lora_c"}) {
    auto w = split_model_name(whole, "_lora_");
    EXPECT_EQ(w.model, whole);
    EXPECT_EQ(w.adapter, "");
  }
  EXPECT_EQ(split_model_name("gemma_lora_doll", "").model, "gemma_lora_doll");
}

TEST(lora, adapters_of_a_listed_model_are_checked_and_numbered) {
  lora_adapters a{"_lora_", {{"gemma", {"doll", "sheep"}}}};
  auto sheep = adapter_task_id(a, {"gemma", "sheep"}, "gemma_lora_sheep");
  ASSERT_TRUE(sheep);
  EXPECT_EQ(*sheep, 2u);
  auto cat = adapter_task_id(a, {"gemma", "cat"}, "gemma_lora_cat");
  ASSERT_FALSE(cat);
  EXPECT_EQ(cat.error().message(), "Unknown LoRA: cat; for model: gemma_lora_cat");
  auto unlisted = adapter_task_id(a, {"other", "any"}, "other_lora_any");
  ASSERT_TRUE(unlisted);
  EXPECT_FALSE(*unlisted);
  EXPECT_EQ(model_ids({"gemma", "other"}, a),
            (std::vector<std::string>{"gemma", "gemma_lora_doll", "gemma_lora_sheep", "other"}));
}

} // namespace
} // namespace conch::transports::openai
