#include "conch/runtime/backends/ensemble/ensemble_graph.hpp"

#include <gtest/gtest.h>

#include "conch/runtime/backends/ensemble/ensemble_test_support.hpp"

using namespace conch::runtime;
using namespace conch::runtime::backends::ensemble;
using namespace conch::runtime::backends::ensemble::test_support;

namespace {

// IN -> a -> mid -> b -> OUT
inference::ModelConfig pipeline() {
  auto config = ensemble_config("pipe", {"IN"}, {"OUT"});
  add_step(config, "a", {{"x", "IN"}}, {{"y", "mid"}});
  add_step(config, "b", {{"x", "mid"}}, {{"y", "OUT"}});
  return config;
}

std::string build_error(const inference::ModelConfig& config) {
  auto g = ensemble_graph::build(config);
  EXPECT_FALSE(g);
  return g ? std::string{} : g.error().message();
}

} // namespace

TEST(ensemble_graph, a_pipeline_links_each_tensor_to_its_writer_and_readers) {
  auto g = ensemble_graph::build(pipeline());
  ASSERT_TRUE(g) << g.error().to_string();
  ASSERT_EQ(g->steps.size(), 2u);
  auto in = g->find("IN");
  auto mid = g->find("mid");
  auto out = g->find("OUT");
  ASSERT_LT(out, g->tensors.size());
  EXPECT_EQ(g->find("nothing"), g->tensors.size());
  EXPECT_EQ(g->producer[in], -1);
  EXPECT_EQ(g->producer[mid], 0);
  EXPECT_EQ(g->producer[out], 1);
  EXPECT_EQ(g->consumers[in], (std::vector<size_t>{0}));
  EXPECT_EQ(g->consumers[mid], (std::vector<size_t>{1}));
  EXPECT_TRUE(g->consumers[out].empty());
  EXPECT_EQ(g->inputs, (std::vector<size_t>{in}));
  EXPECT_EQ(g->outputs, (std::vector<size_t>{out}));
  EXPECT_EQ(g->steps[1].inputs, (std::vector<std::pair<std::string, size_t>>{{"x", mid}}));
}

TEST(ensemble_graph, fan_out_and_fan_in_read_one_tensor_from_several_steps) {
  auto config = ensemble_config("diamond", {"IN"}, {"OUT"});
  add_step(config, "left", {{"x", "IN"}}, {{"y", "l"}});
  add_step(config, "right", {{"x", "IN"}}, {{"y", "r"}});
  add_step(config, "join", {{"a", "l"}, {"b", "r"}}, {{"y", "OUT"}});
  auto g = ensemble_graph::build(config);
  ASSERT_TRUE(g) << g.error().to_string();
  EXPECT_EQ(g->consumers[g->find("IN")], (std::vector<size_t>{0, 1}));
  EXPECT_EQ(g->consumers[g->find("l")], (std::vector<size_t>{2}));
  EXPECT_EQ(g->consumers[g->find("r")], (std::vector<size_t>{2}));
}

TEST(ensemble_graph, refuses_a_tensor_written_twice_or_over_an_input) {
  auto twice = ensemble_config("e", {"IN"}, {"OUT"});
  add_step(twice, "a", {{"x", "IN"}}, {{"y", "OUT"}});
  add_step(twice, "b", {{"x", "IN"}}, {{"y", "OUT"}});
  EXPECT_NE(build_error(twice).find("ensemble tensor 'OUT' can appear in an output map only once for ensemble "
                                 "'e' step 1"),
            std::string::npos);
  auto over_input = ensemble_config("e", {"IN"}, {"OUT"});
  add_step(over_input, "a", {{"x", "IN"}}, {{"y", "IN"}, {"z", "OUT"}});
  EXPECT_NE(build_error(over_input).find("'IN' is an input of the ensemble"), std::string::npos);
}

TEST(ensemble_graph, refuses_a_tensor_nobody_writes_and_an_output_never_written) {
  auto unread = ensemble_config("e", {"IN"}, {"OUT"});
  add_step(unread, "a", {{"x", "ghost"}}, {{"y", "OUT"}});
  EXPECT_NE(build_error(unread).find("reads ensemble tensor 'ghost'"), std::string::npos);
  auto unwritten = ensemble_config("e", {"IN"}, {"OUT", "OTHER"});
  add_step(unwritten, "a", {{"x", "IN"}}, {{"y", "OUT"}});
  EXPECT_NE(build_error(unwritten).find("output 'OTHER' for ensemble 'e' is not written"),
            std::string::npos);
}

TEST(ensemble_graph, refuses_a_cycle) {
  auto config = ensemble_config("e", {"IN"}, {"OUT"});
  add_step(config, "a", {{"x", "IN"}, {"loop", "t2"}}, {{"y", "t1"}});
  add_step(config, "b", {{"x", "t1"}}, {{"y", "t2"}, {"z", "OUT"}});
  auto message = build_error(config);
  EXPECT_NE(message.find("ensemble 'e': step 0 (model 'a') can never run"), std::string::npos)
    << message;
}

TEST(ensemble_graph, checks_the_steps_against_the_composing_models) {
  auto config = pipeline();
  auto g = ensemble_graph::build(config);
  ASSERT_TRUE(g);
  fake_gateway models;
  auto missing = check_steps(*g, config, models);
  EXPECT_EQ(missing.code(), errc::invalid_argument);
  EXPECT_EQ(missing.message(),
            "ensemble pipe contains models that are not available or ambiguous: a, b");
  models.add(model_config("a", {"x"}, {"y"}), nullptr);
  models.add(model_config("b", {"x"}, {"y"}), nullptr);
  EXPECT_TRUE(check_steps(*g, config, models));

  models.add(model_config("b", {"other"}, {"y"}), nullptr);
  auto no_input = check_steps(*g, config, models);
  EXPECT_NE(no_input.message().find("ensemble tensor mid is mapping to non-existing input x in model b"), std::string::npos);

  auto typed = model_config("b", {"x"}, {"y"});
  typed.mutable_input(0)->set_data_type(inference::TYPE_INT32);
  models.add(typed, nullptr);
  auto mismatch = check_steps(*g, config, models);
  EXPECT_EQ(mismatch.code(), errc::invalid_argument);
  EXPECT_NE(mismatch.message().find("ensemble tensor mid: inconsistent data type: TYPE_FP32 is "
                                  "inferred from model a while TYPE_INT32 is inferred from "
                                  "model b"),
            std::string::npos)
    << mismatch.message();
}

TEST(ensemble_graph, refuses_an_unused_input_and_an_unmapped_model_input) {
  auto unused = ensemble_config("e", {"IN", "SPARE"}, {"OUT"});
  add_step(unused, "a", {{"x", "IN"}}, {{"y", "OUT"}});
  EXPECT_EQ(build_error(unused), "ensemble input 'SPARE' for ensemble 'e' is not used");

  auto config = ensemble_config("e", {"IN"}, {"OUT"});
  add_step(config, "a", {{"x", "IN"}}, {{"y", "OUT"}});
  auto g = ensemble_graph::build(config);
  ASSERT_TRUE(g);
  fake_gateway models;
  auto two_inputs = model_config("a", {"x", "w"}, {"y"});
  models.add(two_inputs, nullptr);
  EXPECT_EQ(check_steps(*g, config, models).message(),
            "in ensemble e, input w in model a is not mapped to any ensemble tensors");
  two_inputs.mutable_input(1)->set_optional(true);
  models.add(two_inputs, nullptr);
  EXPECT_TRUE(check_steps(*g, config, models));
}
