#include "conch/runtime/batching/sequence_queue.hpp"

#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

using namespace conch::runtime;
using namespace conch::runtime::batching;

namespace {

constexpr uint64_t ms = 1'000'000; // nanoseconds per millisecond
constexpr uint64_t t0 = 1'000'000'000;

// simple_sequence's configuration (batching over `slots` slots, int32
// START/READY/END and a uint64 CORRID) with `extra` in sequence_batching.
sequence_config config_of(int slots, const std::string& extra = "", size_t instances = 1,
                          const std::string& corrid_type = "TYPE_UINT64") {
  inference::ModelConfig c;
  std::string text = "name: \"seq\"\nmax_batch_size: " + std::to_string(slots) + R"(
    input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
    output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
    sequence_batching {
      max_sequence_idle_microseconds: 5000
      control_input [
        { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
        { name: "END" control [ { kind: CONTROL_SEQUENCE_END fp32_false_true: [ 0, 1 ] } ] },
        { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY bool_false_true: [ false, true ] } ] },
        { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: )" + corrid_type
                     + R"( } ] }
      ]
      )" + extra + "\n}\n";
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &c)) << text;
  auto out = sequence_config::from(c, {}, instances);
  EXPECT_TRUE(out) << out.error().to_string();
  return std::move(*out);
}

job_ptr make_job(std::string id, correlation_id seq, uint32_t flags, int32_t value = 0) {
  inference_request req;
  req.model_name = "seq";
  req.id = std::move(id);
  req.correlation_id = std::move(seq);
  req.flags = flags;
  req.inputs.push_back(tensor{"INPUT", data_type::int32, {1, 1}, buffer::copy_of(&value, 4)});
  return std::make_shared<inference_job>(std::move(req), [](inference_response&&) {});
}

constexpr uint32_t start = request_sequence_start;
constexpr uint32_t end = request_sequence_end;

std::vector<std::string> ids(const std::vector<job_ptr>& jobs) {
  std::vector<std::string> out;
  for (const auto& j : jobs)
    out.push_back(j->request().id);
  return out;
}

using names = std::vector<std::string>;

template <class T>
T value_of(const inference_job& job, const std::string& name) {
  const auto* t = job.request().input(name);
  EXPECT_NE(t, nullptr) << name;
  T out{};
  if (t != nullptr)
    std::memcpy(&out, t->data.data(), sizeof(T));
  return out;
}

// START, END, READY and CORRID of one row.
struct controls {
  int32_t start;
  float end;
  uint8_t ready;
  uint64_t corrid;
  bool operator==(const controls& o) const {
    return start == o.start && end == o.end && ready == o.ready && corrid == o.corrid;
  }
};

std::ostream& operator<<(std::ostream& os, const controls& c) {
  return os << "{start " << c.start << ", end " << c.end << ", ready " << int{c.ready}
            << ", corrid " << c.corrid << "}";
}

controls controls_of(const inference_job& job) {
  return {value_of<int32_t>(job, "START"), value_of<float>(job, "END"),
          value_of<uint8_t>(job, "READY"), value_of<uint64_t>(job, "CORRID")};
}

} // namespace

TEST(sequence_queue, refuses_what_triton_refuses) {
  sequence_queue q{config_of(2)};
  auto st = q.enqueue(make_job("a", {}, start), t0);
  EXPECT_EQ(st.message(), "inference request to model 'seq' must specify a non-zero or "
                          "non-empty correlation ID");
  EXPECT_EQ(q.enqueue(make_job("a", uint64_t{0}, start), t0).code(), errc::invalid_argument);
  EXPECT_EQ(q.enqueue(make_job("a", std::string{}, start), t0).code(), errc::invalid_argument);
  st = q.enqueue(make_job("a", uint64_t{7}, 0), t0);
  EXPECT_EQ(st.message(), "inference request for sequence 7 to model 'seq' must specify the "
                          "START flag on the first request of the sequence");
  auto two = make_job("b", uint64_t{7}, start);
  two->request().inputs[0].shape = {2, 1};
  st = q.enqueue(two, t0);
  EXPECT_EQ(st.message(), "inference request to model 'seq' must specify batch-size 1 due to "
                          "requirements of sequence batcher");
  st = q.enqueue(make_job("c", std::string{"text"}, start), t0);
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.message().find("string correlation ID 'text'"), std::string::npos);
  EXPECT_TRUE(q.empty());
}

TEST(sequence_queue, direct_gives_each_sequence_its_row_with_its_controls) {
  sequence_queue q{config_of(2)};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{10}, start), t0));
  ASSERT_TRUE(q.enqueue(make_job("b1", uint64_t{20}, start), t0));
  ASSERT_TRUE(q.enqueue(make_job("a2", uint64_t{10}, 0), t0));
  auto d = q.next(t0, 0);
  ASSERT_EQ(ids(d.jobs), (names{"a1", "b1"}));
  EXPECT_EQ(d.padding, 0u);
  EXPECT_EQ(controls_of(*d.jobs[0]), (controls{1, 0.0f, 1, 10}));
  EXPECT_EQ(controls_of(*d.jobs[1]), (controls{1, 0.0f, 1, 20}));
  EXPECT_EQ(d.jobs[0]->request().input("START")->shape, (shape_type{1, 1}));
  // One batch per instance at a time: a2 waits until a1's batch returns.
  EXPECT_TRUE(q.next(t0, 0).jobs.empty());
  q.batch_done(0, t0 + ms);
  d = q.next(t0 + ms, 0);
  // a2 keeps slot 0; sequence 20 has nothing queued, and rows end at the
  // highest slot with a request.
  ASSERT_EQ(ids(d.jobs), (names{"a2"}));
  EXPECT_EQ(controls_of(*d.jobs[0]), (controls{0, 0.0f, 1, 10}));
}

TEST(sequence_queue, direct_pads_slots_below_the_highest_one_with_a_request) {
  sequence_queue q{config_of(2)};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{10}, start), t0));
  ASSERT_TRUE(q.enqueue(make_job("b1", uint64_t{20}, start), t0));
  ASSERT_EQ(q.next(t0, 0).jobs.size(), 2u);
  q.batch_done(0, t0);
  ASSERT_TRUE(q.enqueue(make_job("b2", uint64_t{20}, end), t0));
  auto d = q.next(t0, 0);
  ASSERT_EQ(d.jobs.size(), 2u);
  EXPECT_EQ(d.padding, 1u);
  EXPECT_EQ(controls_of(*d.jobs[0]), (controls{0, 0.0f, 0, 0}));
  EXPECT_EQ(d.jobs[0]->request().input("INPUT")->shape, (shape_type{1, 1}));
  EXPECT_EQ(value_of<int32_t>(*d.jobs[0], "INPUT"), 0);
  EXPECT_EQ(d.jobs[1]->request().id, "b2");
  EXPECT_EQ(controls_of(*d.jobs[1]), (controls{0, 1.0f, 1, 20}));
  // The END freed sequence 20's slot: the id is unknown from now on.
  EXPECT_EQ(q.enqueue(make_job("b3", uint64_t{20}, 0), t0).code(), errc::invalid_argument);
}

TEST(sequence_queue, a_sequence_waits_in_the_backlog_for_a_free_slot) {
  sequence_queue q{config_of(1)};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{1}, start), t0));
  ASSERT_TRUE(q.enqueue(make_job("b1", uint64_t{2}, start | end), t0));
  ASSERT_TRUE(q.enqueue(make_job("b2", uint64_t{2}, start), t0));
  EXPECT_EQ(q.active(), 1u);
  EXPECT_EQ(q.backlogged(), 2u);
  EXPECT_EQ(ids(q.next(t0, 0).jobs), (names{"a1"}));
  q.batch_done(0, t0);
  EXPECT_TRUE(q.next(t0, 0).jobs.empty());
  ASSERT_TRUE(q.enqueue(make_job("a2", uint64_t{1}, end), t0));
  EXPECT_EQ(ids(q.next(t0, 0).jobs), (names{"a2"}));
  q.batch_done(0, t0);
  // The oldest backlog sequence (b1, START and END at once) took the slot.
  auto d = q.next(t0, 0);
  ASSERT_EQ(ids(d.jobs), (names{"b1"}));
  EXPECT_EQ(controls_of(*d.jobs[0]), (controls{1, 1.0f, 1, 2}));
  q.batch_done(0, t0);
  EXPECT_EQ(ids(q.next(t0, 0).jobs), (names{"b2"}));
}

TEST(sequence_queue, sequences_spread_over_instances_before_filling_one) {
  sequence_queue q{config_of(2, "", 2)};
  ASSERT_TRUE(q.enqueue(make_job("a", uint64_t{1}, start), t0));
  ASSERT_TRUE(q.enqueue(make_job("b", uint64_t{2}, start), t0));
  ASSERT_TRUE(q.enqueue(make_job("c", uint64_t{3}, start), t0));
  EXPECT_EQ(ids(q.next(t0, 0).jobs), (names{"a", "c"}));
  EXPECT_EQ(ids(q.next(t0, 1).jobs), (names{"b"}));
}

TEST(sequence_queue, an_idle_sequence_loses_its_slot) {
  sequence_queue q{config_of(1)};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{1}, start), t0));
  ASSERT_TRUE(q.enqueue(make_job("b1", uint64_t{2}, start), t0));
  q.next(t0, 0);
  q.batch_done(0, t0 + ms);
  EXPECT_EQ(q.next_deadline(), t0 + 6 * ms);  // the 5 ms idle limit
  EXPECT_TRUE(q.take_expired(t0 + 5 * ms).empty());
  EXPECT_EQ(q.active(), 1u);
  EXPECT_TRUE(q.take_expired(t0 + 6 * ms).empty());
  // Sequence 2 took the slot over; sequence 1 is unknown now.
  EXPECT_EQ(q.backlogged(), 0u);
  EXPECT_EQ(ids(q.next(t0 + 6 * ms, 0).jobs), (names{"b1"}));
  EXPECT_EQ(q.enqueue(make_job("a2", uint64_t{1}, 0), t0 + 6 * ms).code(),
            errc::invalid_argument);
}

TEST(sequence_queue, cancelling_a_request_ends_its_sequence) {
  sequence_queue q{config_of(1)};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{1}, start), t0));
  ASSERT_TRUE(q.enqueue(make_job("b1", uint64_t{2}, start), t0));
  auto a2 = make_job("a2", uint64_t{1}, 0);
  ASSERT_TRUE(q.enqueue(a2, t0));
  ASSERT_TRUE(q.enqueue(make_job("a3", uint64_t{1}, 0), t0));
  EXPECT_EQ(ids(q.next(t0, 0).jobs), (names{"a1"}));
  a2->cancel();
  EXPECT_EQ(ids(q.take_cancelled()), (names{"a2", "a3"}));
  EXPECT_EQ(q.size(), 1u);
  // a1 still runs: the slot is freed when it returns.
  EXPECT_TRUE(q.next(t0, 0).jobs.empty());
  q.batch_done(0, t0);
  EXPECT_EQ(ids(q.next(t0, 0).jobs), (names{"b1"}));
}

TEST(sequence_queue, a_backlog_timeout_ends_the_whole_sequence) {
  sequence_queue q{config_of(1)};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{1}, start), t0));
  auto b1 = make_job("b1", uint64_t{2}, start);
  b1->request().timeout_us = 1000;
  ASSERT_TRUE(q.enqueue(b1, t0));
  ASSERT_TRUE(q.enqueue(make_job("b2", uint64_t{2}, 0), t0));
  EXPECT_EQ(q.next_deadline(), t0 + ms);
  EXPECT_EQ(ids(q.take_expired(t0 + ms)), (names{"b1", "b2"}));
  EXPECT_EQ(q.timeout_error().message(), "timeout of the corresponding sequence has been expired");
  EXPECT_EQ(q.size(), 1u);
}

TEST(sequence_queue, a_second_start_continues_in_the_same_slot) {
  sequence_queue q{config_of(2)};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{1}, start), t0));
  ASSERT_TRUE(q.enqueue(make_job("a2", uint64_t{1}, start), t0));
  EXPECT_EQ(ids(q.next(t0, 0).jobs), (names{"a1"}));
  q.batch_done(0, t0);
  auto d = q.next(t0, 0);
  ASSERT_EQ(ids(d.jobs), (names{"a2"}));
  EXPECT_EQ(controls_of(*d.jobs[0]).start, 1);
  EXPECT_EQ(q.active(), 1u);
}

TEST(sequence_queue, a_string_correlation_id_goes_to_a_string_control_as_one_element) {
  sequence_queue q{config_of(0, "", 1, "TYPE_STRING")};
  ASSERT_TRUE(q.enqueue(make_job("a", std::string{"abc"}, start), t0));
  auto d = q.next(t0, 0);
  ASSERT_EQ(d.jobs.size(), 1u);
  const auto* corrid = d.jobs[0]->request().input("CORRID");
  ASSERT_NE(corrid, nullptr);
  EXPECT_EQ(corrid->type, data_type::bytes);
  EXPECT_EQ(corrid->shape, (shape_type{1}));
  ASSERT_EQ(corrid->data.size(), 7u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(corrid->data.data()) + 4, 3), "abc");
}

TEST(sequence_queue, oldest_batches_one_request_per_sequence_oldest_first) {
  // Two candidates per instance, as Triton counts them: four slots.
  sequence_queue q{config_of(4, "oldest { max_candidate_sequences: 2 }", 2)};
  ASSERT_TRUE(q.enqueue(make_job("b1", uint64_t{2}, start), t0 + 1));
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{1}, start), t0 + 2));
  ASSERT_TRUE(q.enqueue(make_job("a2", uint64_t{1}, 0), t0 + 3));
  ASSERT_TRUE(q.enqueue(make_job("c1", uint64_t{3}, start), t0 + 4));
  ASSERT_TRUE(q.enqueue(make_job("d1", uint64_t{4}, start), t0 + 5));
  ASSERT_TRUE(q.enqueue(make_job("e1", uint64_t{5}, start), t0 + 6));
  EXPECT_EQ(q.active(), 4u);
  EXPECT_EQ(q.backlogged(), 1u);
  EXPECT_EQ(ids(q.next(t0 + 10, 0).jobs), (names{"b1", "a1", "c1", "d1"}));
  // Every sequence with a slot has a request running: nothing for another
  // instance, though a2 waits.
  EXPECT_TRUE(q.next(t0 + 10, 1).jobs.empty());
  q.batch_done(0, t0 + 20);
  EXPECT_EQ(ids(q.next(t0 + 20, 1).jobs), (names{"a2"}));
}

TEST(sequence_queue, oldest_waits_for_a_fuller_batch_up_to_the_delay) {
  sequence_queue q{config_of(4, "oldest { max_candidate_sequences: 4 preferred_batch_size: [ 2 ] "
                                "max_queue_delay_microseconds: 1000 }")};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{1}, start), t0));
  auto d = q.next(t0, 0);
  EXPECT_TRUE(d.jobs.empty());
  EXPECT_EQ(d.wake_at_ns, t0 + ms);
  ASSERT_TRUE(q.enqueue(make_job("b1", uint64_t{2}, start), t0 + 10));
  EXPECT_EQ(ids(q.next(t0 + 10, 0).jobs), (names{"a1", "b1"}));
  q.batch_done(0, t0 + 20);
  ASSERT_TRUE(q.enqueue(make_job("a2", uint64_t{1}, 0), t0 + 30));
  EXPECT_TRUE(q.next(t0 + 40, 0).jobs.empty());
  EXPECT_EQ(ids(q.next(t0 + 30 + ms, 0).jobs), (names{"a2"}));
}

TEST(sequence_queue, implicit_state_is_fed_back_per_sequence) {
  inference::ModelConfig c;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    name: "acc" max_batch_size: 2
    input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
    output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
    sequence_batching {
      state [ { input_name: "IN_STATE" output_name: "OUT_STATE" data_type: TYPE_INT32 dims: [ 1 ]
                initial_state { name: "zero" data_type: TYPE_INT32 dims: [ 1 ] zero_data: true } } ]
    })", &c));
  auto settings = sequence_config::from(c, {}, 1);
  ASSERT_TRUE(settings) << settings.error().to_string();
  sequence_queue q{std::move(*settings)};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{1}, start), t0));
  auto d = q.next(t0, 0);
  ASSERT_EQ(d.jobs.size(), 1u);
  auto& job = *d.jobs[0];
  EXPECT_EQ(value_of<int32_t>(job, "IN_STATE"), 0);
  EXPECT_EQ(job.request().input("IN_STATE")->shape, (shape_type{1, 1}));
  EXPECT_EQ(job.request().requested_outputs, (names{"OUTPUT", "OUT_STATE"}));
  // The model answers with its new state, which the client does not see.
  int32_t five = 5;
  inference_response r;
  r.outputs.push_back(tensor{"OUTPUT", data_type::int32, {1, 1}, buffer::copy_of(&five, 4)});
  r.outputs.push_back(tensor{"OUT_STATE", data_type::int32, {1, 1}, buffer::copy_of(&five, 4)});
  r.final = true;
  job.respond(std::move(r));
  ASSERT_TRUE(job.completed());
  q.batch_done(0, t0);
  ASSERT_TRUE(q.enqueue(make_job("a2", uint64_t{1}, 0), t0));
  ASSERT_TRUE(q.enqueue(make_job("b1", uint64_t{2}, start), t0));
  d = q.next(t0, 0);
  ASSERT_EQ(ids(d.jobs), (names{"a2", "b1"}));
  EXPECT_EQ(value_of<int32_t>(*d.jobs[0], "IN_STATE"), 5);
  EXPECT_EQ(value_of<int32_t>(*d.jobs[1], "IN_STATE"), 0);
}

TEST(sequence_queue, the_client_sees_only_the_model_outputs_it_asked_for) {
  inference::ModelConfig c;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    name: "acc" max_batch_size: 0
    input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
    output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
    sequence_batching {
      state [ { input_name: "IN_STATE" output_name: "OUT_STATE" data_type: TYPE_INT32 dims: [ 1 ] } ]
    })", &c));
  auto settings = sequence_config::from(c, {}, 1);
  ASSERT_TRUE(settings);
  sequence_queue q{std::move(*settings)};
  std::vector<std::string> got;
  inference_request req;
  req.model_name = "acc";
  req.correlation_id = uint64_t{9};
  req.flags = start;
  int32_t one = 1;
  req.inputs.push_back(tensor{"INPUT", data_type::int32, {1}, buffer::copy_of(&one, 4)});
  auto job = std::make_shared<inference_job>(std::move(req), [&](inference_response&& r) {
    for (auto& t : r.outputs)
      got.push_back(t.name);
  });
  ASSERT_TRUE(q.enqueue(job, t0));
  auto d = q.next(t0, 0);
  ASSERT_EQ(d.jobs.size(), 1u);
  EXPECT_EQ(d.jobs[0]->request().input("IN_STATE")->shape, (shape_type{1}));
  inference_response r;
  r.outputs.push_back(tensor{"OUTPUT", data_type::int32, {1}, buffer::copy_of(&one, 4)});
  r.outputs.push_back(tensor{"OUT_STATE", data_type::int32, {1}, buffer::copy_of(&one, 4)});
  r.final = true;
  job->respond(std::move(r));
  EXPECT_EQ(got, (names{"OUTPUT"}));
}

TEST(sequence_queue, a_missing_initial_state_file_is_a_load_error) {
  inference::ModelConfig c;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    name: "acc" max_batch_size: 0
    sequence_batching {
      state [ { input_name: "S" output_name: "T" data_type: TYPE_INT32 dims: [ 2 ]
                initial_state { name: "f" data_type: TYPE_INT32 dims: [ 2 ] data_file: "none" } } ]
    })", &c));
  auto settings = sequence_config::from(c, "/nonexistent", 1);
  ASSERT_FALSE(settings);
  EXPECT_NE(settings.error().message().find("initial_state"), std::string::npos);
}

TEST(sequence_queue, a_lost_instance_ends_its_sequences_and_takes_none_until_it_is_back) {
  sequence_queue q{config_of(1, "", 2)};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{1}, start), t0));
  ASSERT_TRUE(q.enqueue(make_job("b1", uint64_t{2}, start), t0));
  ASSERT_TRUE(q.enqueue(make_job("b2", uint64_t{2}, 0), t0));
  EXPECT_EQ(ids(q.instance_down(1)), (names{"b1", "b2"}));
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.enqueue(make_job("b3", uint64_t{2}, 0), t0).code(), errc::invalid_argument);
  // A new sequence waits for instance 0, not for the lost one.
  ASSERT_TRUE(q.enqueue(make_job("c1", uint64_t{3}, start), t0));
  EXPECT_EQ(q.backlogged(), 1u);
  q.instance_up(1);
  EXPECT_EQ(q.backlogged(), 0u);
  EXPECT_EQ(ids(q.next(t0, 1).jobs), (names{"c1"}));
}

TEST(sequence_queue, a_drain_frees_the_slots_of_sequences_that_wait_for_a_request) {
  sequence_queue q{config_of(1)};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{1}, start), t0));
  q.next(t0, 0);
  q.batch_done(0, t0);
  ASSERT_TRUE(q.enqueue(make_job("b1", uint64_t{2}, start), t0));
  EXPECT_EQ(q.backlogged(), 1u);
  q.draining();
  EXPECT_EQ(ids(q.next(t0, 0).jobs), (names{"b1"}));
}

TEST(sequence_queue, during_a_drain_a_sequence_frees_its_slot_when_its_request_returns) {
  sequence_queue q{config_of(1)};
  ASSERT_TRUE(q.enqueue(make_job("a1", uint64_t{1}, start), t0));
  q.next(t0, 0);
  // The drain begins while a1 runs: its sequence cannot go yet.
  q.draining();
  ASSERT_TRUE(q.enqueue(make_job("b1", uint64_t{2}, start), t0));
  EXPECT_EQ(q.backlogged(), 1u);
  q.batch_done(0, t0);
  EXPECT_EQ(q.backlogged(), 0u);
  EXPECT_EQ(ids(q.next(t0, 0).jobs), (names{"b1"}));
  q.batch_done(0, t0);
  EXPECT_EQ(q.active(), 0u);
}

TEST(sequence_queue, what_conch_does_not_support_is_refused_at_load) {
  inference::ModelConfig c;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    name: "dec" max_batch_size: 1 model_transaction_policy { decoupled: true }
    sequence_batching {
      state [ { input_name: "S" output_name: "T" data_type: TYPE_INT32 dims: [ 1 ] } ]
    })", &c));
  EXPECT_EQ(sequence_config::from(c, {}, 1).error().code(), errc::unsupported);
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
    name: "grow" max_batch_size: 1 model_transaction_policy { decoupled: false }
    sequence_batching {
      state [ { input_name: "S" output_name: "T" data_type: TYPE_INT32 dims: [ 1 ]
                use_growable_memory: true } ]
    })", &c));
  auto st = sequence_config::from(c, {}, 1);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message(), "In order to 'use_growable_memory', you must also enable "
                                  "'use_single_buffer' for state input name 'S'.");
}

TEST(sequence_queue, an_iterative_request_is_its_own_sequence_and_runs_until_done) {
  sequence_queue q{config_of(2, "iterative_sequence: true oldest { max_candidate_sequences: 2 }")};
  // No correlation id and no flags needed.
  ASSERT_TRUE(q.enqueue(make_job("a", {}, 0), t0));
  ASSERT_TRUE(q.enqueue(make_job("b", {}, 0), t0));
  auto first = q.next(t0, 0).jobs;
  ASSERT_EQ(ids(first), (names{"a", "b"}));
  EXPECT_EQ(controls_of(*first[0]).start, 1);
  // a goes on, b is done.
  ASSERT_TRUE(q.reschedule(first[0], t0));
  q.batch_done(0, t0);
  ASSERT_TRUE(q.enqueue(make_job("c", {}, 0), t0));
  auto second = q.next(t0, 0).jobs;
  ASSERT_EQ(ids(second), (names{"a", "c"}));
  EXPECT_EQ(controls_of(*second[0]).start, 0);  // a continues
  EXPECT_EQ(controls_of(*second[1]).start, 1);  // c begins
  q.batch_done(0, t0);
  EXPECT_EQ(q.size(), 0u);
  EXPECT_EQ(q.active(), 0u);
}

TEST(sequence_queue, without_iterative_sequences_a_reschedule_is_refused) {
  sequence_queue q{config_of(1)};
  ASSERT_TRUE(q.enqueue(make_job("a", uint64_t{7}, start | end), t0));
  auto jobs = q.next(t0, 0).jobs;
  ASSERT_EQ(jobs.size(), 1u);
  auto st = q.reschedule(jobs[0], t0);
  EXPECT_EQ(st.code(), errc::unsupported);
  EXPECT_NE(st.message().find("TRITONSERVER_REQUEST_RELEASE_RESCHEDULE"), std::string::npos);
}
