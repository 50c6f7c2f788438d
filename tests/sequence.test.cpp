// The sequence batcher through the server: control inputs and implicit state
// reach the backend, sequences share slots and wait in the backlog, idle
// sequences are released, and Triton's errors come back.

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "support/response_collector.hpp"
#include "support/sequence_backend.hpp"
#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using runtime::data_type;
using runtime::errc;

// An accumulator on the sequence backend: START and READY controls, the
// running sum as its implicit state, returned as OUTPUT.
std::string accumulator(const std::string& name, int max_batch_size,
                        const std::string& strategy = "", int instances = 1,
                        uint64_t idle_us = 5'000'000) {
  return "name: \"" + name + "\"\nbackend: \"seq_acc\"\nmax_batch_size: "
         + std::to_string(max_batch_size) + R"(
    input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
    output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
    instance_group [ { count: )" + std::to_string(instances) + R"( kind: KIND_CPU } ]
    sequence_batching {
      )" + strategy + "\n      max_sequence_idle_microseconds: " + std::to_string(idle_us) + R"(
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
        { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ] }
      ]
      state [ { input_name: "ACC_IN" output_name: "ACC_OUT" data_type: TYPE_INT32 dims: [ 1 ]
                initial_state { name: "zero" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } } ]
    }
  )";
}

runtime::inference_request step(const std::string& model, const std::string& id, uint64_t seq,
                                int32_t value, uint32_t flags, bool batched = true) {
  auto r = make_request(model, id,
                        {make_tensor("INPUT", data_type::int32,
                                     batched ? runtime::shape_type{1, 1} : runtime::shape_type{1},
                                     std::vector<int32_t>{value})});
  r.correlation_id = seq;
  r.flags = flags;
  return r;
}

constexpr uint32_t seq_start = runtime::request_sequence_start;
constexpr uint32_t seq_end = runtime::request_sequence_end;

class sequence : public server_fixture {
 protected:
  void SetUp() override {
    log_ = std::make_shared<sequence_log>();
    register_sequence_backend("seq_acc", log_);
    repo_.add_model("direct2", accumulator("direct2", 2));
    repo_.add_model("oldest", accumulator("oldest", 4, "oldest { max_candidate_sequences: 4 }", 2));
    repo_.add_model("unbatched", accumulator("unbatched", 0, "", 1, 10'000));
    auto s = start(options_for(repo_.str()));
    ASSERT_TRUE(s) << s.error().to_string();
    srv_ = *s;
  }

  // The OUTPUT of request `id`, or a failure.
  int32_t output_of(const response_collector& c, const std::string& id) {
    auto r = c.final_of(id);
    EXPECT_TRUE(r.error.is_ok()) << id << ": " << r.error.to_string();
    if (!r.error.is_ok() || r.outputs.empty())
      return -1;
    EXPECT_EQ(r.outputs.size(), 1u) << "the state is not returned";
    return values_of<int32_t>(r.outputs[0]).at(0);
  }

  temp_repository repo_;
  std::shared_ptr<sequence_log> log_;
  std::optional<actors::server> srv_;
};

TEST_F(sequence, three_sequences_on_two_slots_keep_their_own_state) {
  response_collector c;
  // A and B take the two slots; C waits in the backlog until A ends.
  struct send_step {
    const char* id;
    uint64_t seq;
    int32_t value;
    uint32_t flags;
  };
  const send_step steps[] = {{"a1", 1, 1, seq_start},   {"b1", 2, 10, seq_start}, {"c1", 3, 100, seq_start},
                             {"a2", 1, 2, 0},       {"b2", 2, 20, 0},     {"c2", 3, 200, 0},
                             {"a3", 1, 3, seq_end},     {"b3", 2, 30, seq_end},   {"c3", 3, 300, seq_end}};
  for (const auto& s : steps)
    srv_->submit(step("direct2", s.id, s.seq, s.value, s.flags), c.callback());
  ASSERT_TRUE(c.wait_finals(9));
  EXPECT_EQ(output_of(c, "a1"), 1);
  EXPECT_EQ(output_of(c, "a2"), 3);
  EXPECT_EQ(output_of(c, "a3"), 6);
  EXPECT_EQ(output_of(c, "b3"), 60);
  EXPECT_EQ(output_of(c, "c1"), 100);
  EXPECT_EQ(output_of(c, "c3"), 600);
  // A sequence's requests ran in order, one per batch, never two at once.
  std::vector<std::string> order;
  for (const auto& batch : log_->batches()) {
    ASSERT_LE(batch.size(), 2u);
    for (const auto& row : batch)
      if (row.ready && row.id[0] == 'c')
        order.push_back(row.id);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"c1", "c2", "c3"}));
}

TEST_F(sequence, an_empty_slot_below_a_busy_one_is_a_padding_row) {
  response_collector c;
  // One after the other, so that sequence 1 takes slot 0 and sequence 2 slot 1.
  srv_->submit(step("direct2", "a1", 1, 1, seq_start), c.callback());
  ASSERT_TRUE(c.wait_finals(1));
  srv_->submit(step("direct2", "b1", 2, 1, seq_start), c.callback());
  ASSERT_TRUE(c.wait_finals(2));
  srv_->submit(step("direct2", "b2", 2, 5, seq_end), c.callback());
  ASSERT_TRUE(c.wait_finals(3));
  EXPECT_EQ(output_of(c, "b2"), 6);
  auto batches = log_->batches();
  ASSERT_FALSE(batches.empty());
  const auto& last = batches.back();
  ASSERT_EQ(last.size(), 2u);
  EXPECT_EQ(last[0].ready, 0);
  EXPECT_EQ(last[1].id, "b2");
  EXPECT_EQ(last[1].ready, 1);
}

TEST_F(sequence, oldest_runs_sequences_across_instances_each_in_order) {
  response_collector c;
  size_t sent = 0;
  for (int k = 0; k < 5; ++k)
    for (uint64_t seq = 1; seq <= 6; ++seq) {
      uint32_t flags = (k == 0 ? seq_start : 0) | (k == 4 ? seq_end : 0);
      srv_->submit(step("oldest", std::to_string(seq) + "_" + std::to_string(k), seq,
                       static_cast<int32_t>(seq * 100 + k), flags),
                  c.callback());
      ++sent;
    }
  ASSERT_TRUE(c.wait_finals(sent));
  for (uint64_t seq = 1; seq <= 6; ++seq) {
    int32_t sum = 0;
    for (int k = 0; k < 5; ++k) {
      sum += static_cast<int32_t>(seq * 100 + k);
      EXPECT_EQ(output_of(c, std::to_string(seq) + "_" + std::to_string(k)), sum);
    }
  }
  for (const auto& batch : log_->batches())
    EXPECT_LE(batch.size(), 4u);
}

TEST_F(sequence, tritons_errors_come_back_and_the_model_keeps_serving) {
  auto none = step("unbatched", "x", 0, 1, seq_start, false);
  none.correlation_id = std::monostate{};
  auto r = infer_sync(*srv_, std::move(none));
  EXPECT_EQ(r.error.code(), errc::invalid_argument);
  EXPECT_EQ(r.error.message(), "inference request to model 'unbatched' must specify a non-zero "
                               "or non-empty correlation ID");
  r = infer_sync(*srv_, step("unbatched", "x", 42, 1, 0, false));
  EXPECT_EQ(r.error.message(), "inference request for sequence 42 to model 'unbatched' must "
                               "specify the START flag on the first request of the sequence");
  auto two = step("direct2", "x", 7, 1, seq_start);
  two.inputs[0] = make_tensor("INPUT", data_type::int32, {2, 1}, std::vector<int32_t>{1, 2});
  r = infer_sync(*srv_, std::move(two));
  EXPECT_EQ(r.error.message(), "inference request to model 'direct2' must specify batch-size 1 "
                               "due to requirements of sequence batcher");
  r = infer_sync(*srv_, step("unbatched", "ok", 43, 4, seq_start | seq_end, false));
  ASSERT_TRUE(r.error.is_ok()) << r.error.to_string();
  EXPECT_EQ(values_of<int32_t>(r.outputs.at(0)).at(0), 4);
}

TEST_F(sequence, an_initial_state_file_of_the_wrong_size_fails_the_load) {
  temp_repository repo;
  auto config = accumulator("bad_state", 2);
  auto zero = config.find("zero_data: true");
  ASSERT_NE(zero, std::string::npos);
  config.replace(zero, std::string{"zero_data: true"}.size(), "data_file: \"state.bin\"");
  auto dir = repo.add_model("bad_state", config);
  std::filesystem::create_directories(dir / "initial_state");
  // 2 of the 4 bytes one INT32 needs.
  std::ofstream{dir / "initial_state" / "state.bin", std::ios::binary} << "ab";
  auto s = start(options_for(repo.str(), actors::control_mode::explicit_));
  ASSERT_TRUE(s) << s.error().to_string();
  auto st = s->load("bad_state");
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("initial_state setting expects"), std::string::npos) << st.message();
}

TEST_F(sequence, an_idle_sequence_is_released) {
  ASSERT_TRUE(infer_sync(*srv_, step("unbatched", "a1", 5, 1, seq_start, false)).error.is_ok());
  ASSERT_TRUE(infer_sync(*srv_, step("direct2", "b1", 6, 1, seq_start)).error.is_ok());
  // unbatched's idle limit is 10 ms, direct2's 5 s; each request of a
  // sequence restarts it.
  std::this_thread::sleep_for(std::chrono::milliseconds{100});
  auto r = infer_sync(*srv_, step("unbatched", "a2", 5, 1, 0, false));
  EXPECT_EQ(r.error.code(), errc::invalid_argument);
  EXPECT_NE(r.error.message().find("must specify the START flag"), std::string::npos)
    << r.error.to_string();
  r = infer_sync(*srv_, step("direct2", "b2", 6, 2, 0));
  ASSERT_TRUE(r.error.is_ok()) << r.error.to_string();
  EXPECT_EQ(values_of<int32_t>(r.outputs.at(0)).at(0), 3);
}

TEST_F(sequence, a_stop_runs_the_backlog_behind_sequences_that_wait_for_a_request) {
  temp_repository repo;
  // One slot, and a minute of idle limit: only the drain frees the slot.
  repo.add_model("one_slot", accumulator("one_slot", 1, "", 1, 60'000'000));
  auto s = start(options_for(repo.str()));
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_TRUE(infer_sync(*s, step("one_slot", "a1", 1, 1, seq_start)).error.is_ok());
  response_collector c;
  s->submit(step("one_slot", "b1", 2, 7, seq_start), c.callback());
  auto begun = std::chrono::steady_clock::now();
  EXPECT_TRUE(s->stop());
  EXPECT_LT(std::chrono::steady_clock::now() - begun, std::chrono::seconds{5});
  ASSERT_TRUE(c.wait_finals(1));
  EXPECT_EQ(output_of(c, "b1"), 7);
}

} // namespace
} // namespace conch::tests
