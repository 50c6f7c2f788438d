// Inference through the public API: every data type, the built-in backends'
// results, request validation, decoupled streams, requested outputs and a
// many-threaded load where every request must be answered exactly once.

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "conch/runtime/data_type.hpp"
#include "support/gate_backend.hpp"
#include "support/model_configs.hpp"
#include "support/response_collector.hpp"
#include "support/server_fixture.hpp"
#include "support/temp_repository.hpp"
#include "support/tensors.hpp"

namespace conch::tests {
namespace {

using runtime::data_type;
using runtime::errc;
using runtime::inference_request;
using runtime::inference_response;
using runtime::tensor;

constexpr std::array<data_type, 14> all_types{
  data_type::bool_, data_type::uint8, data_type::uint16, data_type::uint32, data_type::uint64,
  data_type::int8,  data_type::int16, data_type::int32,  data_type::int64,  data_type::fp16,
  data_type::fp32,  data_type::fp64,  data_type::bytes,  data_type::bf16};

// An identity model with input/output i of type all_types[i], dims [3].
std::string every_type_config() {
  std::string inputs;
  std::string outputs;
  for (size_t i = 0; i < all_types.size(); ++i) {
    auto type = std::string{runtime::config_type_name(all_types[i])};
    auto sep = i == 0 ? "" : ",\n";
    inputs += sep + ("{ name: \"INPUT" + std::to_string(i) + "\" data_type: " + type
                     + " dims: [ 3 ] }");
    outputs += sep + ("{ name: \"OUTPUT" + std::to_string(i) + "\" data_type: " + type
                      + " dims: [ 3 ] }");
  }
  return "name: \"every_type\"\nbackend: \"identity\"\nmax_batch_size: 0\ninput [\n" + inputs
         + "\n]\noutput [\n" + outputs + "\n]\n";
}

// Three elements of `type` whose bytes differ from one type to the next.
tensor sample_of(data_type type, size_t i) {
  auto name = "INPUT" + std::to_string(i);
  if (type == data_type::bytes)
    return bytes_tensor(name, {3}, {"", std::string("a\0b", 3), std::string(300, 'z')});
  if (type == data_type::bool_)
    return make_tensor(name, type, {3}, std::vector<uint8_t>{1, 0, 1});
  auto size = runtime::element_size(type) * 3;
  std::vector<uint8_t> bytes(size);
  for (size_t k = 0; k < size; ++k)
    bytes[k] = static_cast<uint8_t>(0x11 * (i + 1) + 37 * k + 0x80 * (k % 2));
  return make_tensor(name, type, {3}, bytes);
}

class inference : public server_fixture {
 protected:
  void SetUp() override {
    auto s = start(example_options());
    ASSERT_TRUE(s) << s.error().to_string();
    srv_ = *s;  // the fixture stops it
  }

  // Sends `request` and returns every response it got, failing the test when
  // no final one came.
  std::vector<inference_response> run(inference_request request) {
    response_collector c;
    srv_->submit(std::move(request), c.callback());
    EXPECT_TRUE(c.wait_finals(1)) << "no final response";
    std::vector<inference_response> out;
    for (auto& e : c.entries())
      out.push_back(std::move(e.response));
    return out;
  }

  // Expects exactly one response: final, with code `code` and `message` in it.
  void expect_one_error(inference_request request, errc code, const std::string& message) {
    auto responses = run(std::move(request));
    ASSERT_EQ(responses.size(), 1u);
    EXPECT_TRUE(responses[0].final);
    EXPECT_EQ(responses[0].error.code(), code) << responses[0].error.to_string();
    EXPECT_NE(responses[0].error.message().find(message), std::string::npos)
      << "'" << responses[0].error.message() << "' lacks '" << message << "'";
    EXPECT_TRUE(responses[0].outputs.empty());
  }

  std::optional<actors::server> srv_;
};

// -- data -------------------------------------------------------------------------

TEST_F(inference, identity_returns_every_data_type_byte_exact) {
  temp_repository r;
  r.add_model("every_type", every_type_config());
  auto s = start(options_for(r.str()));
  ASSERT_TRUE(s) << s.error().to_string();
  std::vector<tensor> inputs;
  for (size_t i = 0; i < all_types.size(); ++i)
    inputs.push_back(sample_of(all_types[i], i));
  auto responses = [&] {
    response_collector c;
    s->submit(make_request("every_type", "t", inputs), c.callback());
    EXPECT_TRUE(c.wait_finals(1));
    return c.entries();
  }();
  ASSERT_EQ(responses.size(), 1u);
  const auto& resp = responses[0].response;
  ASSERT_TRUE(resp.error.is_ok()) << resp.error.to_string();
  ASSERT_EQ(resp.outputs.size(), all_types.size());
  for (size_t i = 0; i < all_types.size(); ++i) {
    SCOPED_TRACE(std::string{runtime::data_type_name(all_types[i])});
    const auto* out = find_output(resp.outputs, "OUTPUT" + std::to_string(i));
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->type, all_types[i]);
    EXPECT_EQ(out->shape, (runtime::shape_type{3}));
    EXPECT_EQ(raw_bytes(*out), raw_bytes(inputs[i]));
  }
}

TEST_F(inference, identity_returns_a_batch_unchanged) {
  std::vector<float> v(3 * 16);
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>(i) * -0.5f;
  auto responses = run(make_request("identity_fp32", "b",
                                    {make_tensor("INPUT0", data_type::fp32, {3, 16}, v)}));
  ASSERT_EQ(responses.size(), 1u);
  ASSERT_TRUE(responses[0].error.is_ok()) << responses[0].error.to_string();
  ASSERT_EQ(responses[0].outputs.size(), 1u);
  EXPECT_EQ(responses[0].outputs[0].name, "OUTPUT0");
  EXPECT_EQ(responses[0].outputs[0].shape, (runtime::shape_type{3, 16}));
  EXPECT_EQ(values_of<float>(responses[0].outputs[0]), v);
  EXPECT_EQ(responses[0].model_name, "identity_fp32");
  EXPECT_EQ(responses[0].model_version, 1);
  EXPECT_EQ(responses[0].id, "b");
}

TEST_F(inference, add_sub_adds_and_subtracts) {
  std::vector<int32_t> a(16);
  std::vector<int32_t> b(16);
  for (int i = 0; i < 16; ++i) {
    a[i] = i * 7 - 20;
    b[i] = 100 - i * i;
  }
  auto responses = run(make_request("simple", "s",
                                    {make_tensor("INPUT0", data_type::int32, {1, 16}, a),
                                     make_tensor("INPUT1", data_type::int32, {1, 16}, b)}));
  ASSERT_EQ(responses.size(), 1u);
  ASSERT_TRUE(responses[0].error.is_ok()) << responses[0].error.to_string();
  const auto* sum = find_output(responses[0].outputs, "OUTPUT0");
  const auto* diff = find_output(responses[0].outputs, "OUTPUT1");
  ASSERT_NE(sum, nullptr);
  ASSERT_NE(diff, nullptr);
  auto s = values_of<int32_t>(*sum);
  auto d = values_of<int32_t>(*diff);
  ASSERT_EQ(s.size(), 16u);
  ASSERT_EQ(d.size(), 16u);
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(s[i], a[i] + b[i]) << i;
    EXPECT_EQ(d[i], a[i] - b[i]) << i;
  }
}

TEST_F(inference, add_sub_wraps_integers_and_handles_floats) {
  temp_repository r;
  auto config = [](const std::string& name, const std::string& type) {
    return "name: \"" + name + "\"\nbackend: \"add_sub\"\nmax_batch_size: 0\n"
           "input [ { name: \"INPUT0\" data_type: " + type + " dims: [ 2 ] },\n"
           "        { name: \"INPUT1\" data_type: " + type + " dims: [ 2 ] } ]\n"
           "output [ { name: \"OUTPUT0\" data_type: " + type + " dims: [ 2 ] },\n"
           "         { name: \"OUTPUT1\" data_type: " + type + " dims: [ 2 ] } ]\n";
  };
  r.add_model("add_int8", config("add_int8", "TYPE_INT8"));
  r.add_model("add_fp64", config("add_fp64", "TYPE_FP64"));
  auto s = start(options_for(r.str()));
  ASSERT_TRUE(s) << s.error().to_string();
  auto i8 = infer_sync(*s, make_request("add_int8", "i",
                                        {make_tensor("INPUT0", data_type::int8, {2},
                                                     std::vector<int8_t>{127, -128}),
                                         make_tensor("INPUT1", data_type::int8, {2},
                                                     std::vector<int8_t>{1, 1})}));
  ASSERT_TRUE(i8.error.is_ok()) << i8.error.to_string();
  EXPECT_EQ(values_of<int8_t>(*find_output(i8.outputs, "OUTPUT0")),
            (std::vector<int8_t>{-128, -127}));
  EXPECT_EQ(values_of<int8_t>(*find_output(i8.outputs, "OUTPUT1")),
            (std::vector<int8_t>{126, 127}));
  auto f64 = infer_sync(*s, make_request("add_fp64", "f",
                                         {make_tensor("INPUT0", data_type::fp64, {2},
                                                      std::vector<double>{0.5, -1.25}),
                                          make_tensor("INPUT1", data_type::fp64, {2},
                                                      std::vector<double>{0.25, 2.0})}));
  ASSERT_TRUE(f64.error.is_ok()) << f64.error.to_string();
  EXPECT_EQ(values_of<double>(*find_output(f64.outputs, "OUTPUT0")),
            (std::vector<double>{0.75, 0.75}));
  EXPECT_EQ(values_of<double>(*find_output(f64.outputs, "OUTPUT1")),
            (std::vector<double>{0.25, -3.25}));
}

// -- validation -----------------------------------------------------------------------

TEST_F(inference, an_unknown_model_is_not_found_in_tritons_words) {
  expect_one_error(fp32_request("x", "u"), errc::not_found,
                   "Request for unknown model: 'x' is not found");
}

TEST_F(inference, an_unknown_version_is_not_found) {
  auto request = fp32_request("identity_fp32", "v");
  request.model_version = 9;
  expect_one_error(std::move(request), errc::not_found,
                   "Request for unknown model: 'identity_fp32' version 9 is not found");
}

TEST_F(inference, a_wrong_data_type_is_invalid) {
  expect_one_error(make_request("identity_fp32", "t",
                                {make_tensor("INPUT0", data_type::int32, {1, 16},
                                             std::vector<int32_t>(16, 1))}),
                   errc::invalid_argument,
                   "inference input 'INPUT0' data-type is 'INT32', but model 'identity_fp32' "
                   "expects 'FP32'");
}

TEST_F(inference, a_wrong_shape_is_invalid) {
  expect_one_error(fp32_request("identity_fp32", "s", 15), errc::invalid_argument,
                   "unexpected shape for input 'INPUT0' for model 'identity_fp32'");
}

TEST_F(inference, a_batch_above_max_batch_size_is_invalid) {
  std::vector<float> v(65 * 16, 1.0f);
  expect_one_error(make_request("identity_fp32", "b",
                                {make_tensor("INPUT0", data_type::fp32, {65, 16}, v)}),
                   errc::invalid_argument,
                   "inference request batch-size must be <= 64 for 'identity_fp32'");
}

TEST_F(inference, a_missing_input_is_invalid) {
  expect_one_error(make_request("simple", "m",
                                {make_tensor("INPUT0", data_type::int32, {1, 16},
                                             std::vector<int32_t>(16, 1))}),
                   errc::invalid_argument, "expected 2 inputs but got 1 inputs for model 'simple'");
}

TEST_F(inference, an_unexpected_input_is_invalid) {
  auto request = fp32_request("identity_fp32", "e");
  request.inputs.push_back(make_tensor("EXTRA", data_type::fp32, {1, 16}, std::vector<float>(16)));
  expect_one_error(std::move(request), errc::invalid_argument,
                   "unexpected inference input 'EXTRA' for model 'identity_fp32'");
}

TEST_F(inference, data_that_disagrees_with_the_shape_is_invalid) {
  auto request = fp32_request("identity_fp32", "d");
  request.inputs[0].data = request.inputs[0].data.slice(0, 60);
  auto responses = run(std::move(request));
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0].error.code(), errc::invalid_argument) << responses[0].error.to_string();
}

TEST_F(inference, an_unknown_requested_output_is_invalid) {
  auto request = fp32_request("identity_fp32", "o");
  request.requested_outputs = {"NOPE"};
  expect_one_error(std::move(request), errc::invalid_argument,
                   "unexpected inference output 'NOPE' for model 'identity_fp32'");
}

// -- outputs ------------------------------------------------------------------------------

TEST_F(inference, requested_outputs_select_what_comes_back) {
  auto request = make_request("simple", "r",
                              {make_tensor("INPUT0", data_type::int32, {1, 16},
                                           std::vector<int32_t>(16, 5)),
                               make_tensor("INPUT1", data_type::int32, {1, 16},
                                           std::vector<int32_t>(16, 3))});
  request.requested_outputs = {"OUTPUT1"};
  auto responses = run(std::move(request));
  ASSERT_EQ(responses.size(), 1u);
  ASSERT_TRUE(responses[0].error.is_ok()) << responses[0].error.to_string();
  ASSERT_EQ(responses[0].outputs.size(), 1u);
  EXPECT_EQ(responses[0].outputs[0].name, "OUTPUT1");
  EXPECT_EQ(values_of<int32_t>(responses[0].outputs[0]), std::vector<int32_t>(16, 2));
}

// -- decoupled ----------------------------------------------------------------------------

TEST_F(inference, repeat_sends_one_response_per_element_then_an_empty_final) {
  std::vector<int32_t> in{42, -7, 0, 1000, 3};
  auto responses = run(make_request("repeat_int32", "rep",
                                    {make_tensor("IN", data_type::int32, {5}, in)}));
  ASSERT_EQ(responses.size(), in.size() + 1);
  for (size_t i = 0; i < in.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& r = responses[i];
    EXPECT_FALSE(r.final);
    ASSERT_TRUE(r.error.is_ok()) << r.error.to_string();
    EXPECT_EQ(r.id, "rep");
    const auto* out = find_output(r.outputs, "OUT");
    const auto* idx = find_output(r.outputs, "IDX");
    ASSERT_NE(out, nullptr);
    ASSERT_NE(idx, nullptr);
    EXPECT_EQ(values_of<int32_t>(*out), std::vector<int32_t>{in[i]});
    EXPECT_EQ(values_of<uint32_t>(*idx), std::vector<uint32_t>{static_cast<uint32_t>(i)});
  }
  EXPECT_TRUE(responses.back().final);
  EXPECT_TRUE(responses.back().error.is_ok());
  EXPECT_TRUE(responses.back().outputs.empty());
}

TEST_F(inference, repeat_with_no_elements_sends_only_the_final) {
  auto responses = run(make_request("repeat_int32", "none",
                                    {make_tensor("IN", data_type::int32, {0},
                                                 std::vector<int32_t>{})}));
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_TRUE(responses[0].final);
  EXPECT_TRUE(responses[0].error.is_ok()) << responses[0].error.to_string();
  EXPECT_TRUE(responses[0].outputs.empty());
}

TEST_F(inference, repeat_honours_requested_outputs_and_repeat_count) {
  temp_repository r;
  r.add_model("counter", R"(
name: "counter"
backend: "repeat"
max_batch_size: 0
model_transaction_policy { decoupled: true }
input [ { name: "IN" data_type: TYPE_INT32 dims: [ -1 ] optional: true } ]
output [
  { name: "OUT" data_type: TYPE_INT32 dims: [ 1 ] },
  { name: "IDX" data_type: TYPE_UINT32 dims: [ 1 ] }
]
)");
  auto s = start(options_for(r.str()));
  ASSERT_TRUE(s) << s.error().to_string();
  auto request = with_parameter(make_request("counter", "c", {}), "repeat_count", 3);
  request.requested_outputs = {"IDX"};
  response_collector c;
  s->submit(std::move(request), c.callback());
  ASSERT_TRUE(c.wait_finals(1));
  auto entries = c.entries();
  ASSERT_EQ(entries.size(), 4u);
  for (uint32_t i = 0; i < 3; ++i) {
    const auto& resp = entries[i].response;
    ASSERT_TRUE(resp.error.is_ok()) << resp.error.to_string();
    ASSERT_EQ(resp.outputs.size(), 1u);
    EXPECT_EQ(resp.outputs[0].name, "IDX");
    EXPECT_EQ(values_of<uint32_t>(resp.outputs[0]), std::vector<uint32_t>{i});
  }
  EXPECT_TRUE(entries[3].response.final);
}

// -- load ----------------------------------------------------------------------------------

// Counts the answers of many requests: how many each one got, and whether each
// final response carried the request's own data back. Thread-safe.
struct tally {
  explicit tally(size_t n) : finals(n) {}

  // Request n asked for 16 values starting at n.
  void record(size_t n, const inference_response& r) {
    finals[n].fetch_add(1);
    bool ok = r.error.is_ok() && r.outputs.size() == 1 && r.id == std::to_string(n);
    if (ok) {
      auto v = values_of<float>(r.outputs[0]);
      bool same = v.size() == 16 && v[0] == static_cast<float>(n)
                  && v[15] == static_cast<float>(n + 15);
      wrong.fetch_add(same ? 0 : 1);
    } else {
      failed.fetch_add(1);
    }
    std::lock_guard<std::mutex> guard{mu};
    if (!r.error.is_ok() && first_error.empty())
      first_error = r.error.to_string();
    ++done;
    cv.notify_all();
  }

  std::vector<std::atomic<int>> finals;
  std::atomic<int> wrong{0};
  std::atomic<int> failed{0};
  std::mutex mu;
  std::condition_variable cv;
  size_t done = 0;
  std::string first_error;
};

TEST_F(inference, ten_thousand_requests_from_four_threads_are_answered_exactly_once) {
  constexpr size_t threads = 4;
  constexpr size_t per_thread = 2500;
  constexpr size_t total = threads * per_thread;
  auto counts = std::make_shared<tally>(total);
  auto submit = [&](size_t t) {
    for (size_t i = 0; i < per_thread; ++i) {
      size_t n = t * per_thread + i;
      auto request = fp32_request("identity_fp32", std::to_string(n), 16, static_cast<float>(n));
      srv_->submit(std::move(request), [counts, n](inference_response&& r) {
        if (r.final)
          counts->record(n, r);
      });
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 0; t < threads; ++t)
    pool.emplace_back(submit, t);
  for (auto& th : pool)
    th.join();
  {
    std::unique_lock<std::mutex> lock{counts->mu};
    ASSERT_TRUE(counts->cv.wait_for(lock, std::chrono::seconds{30},
                                    [&] { return counts->done >= total; }))
      << counts->done << " of " << total << " answered";
    EXPECT_TRUE(counts->first_error.empty()) << counts->first_error;
  }
  EXPECT_EQ(counts->failed.load(), 0);
  EXPECT_EQ(counts->wrong.load(), 0);
  size_t not_once = 0;
  for (auto& f : counts->finals)
    not_once += f.load() == 1 ? 0 : 1;
  EXPECT_EQ(not_once, 0u);
  auto stats = srv_->model_statistics("identity_fp32");
  ASSERT_TRUE(stats) << stats.error().to_string();
  ASSERT_EQ(stats->size(), 1u);
  EXPECT_TRUE(eventually([&] {
    auto s = srv_->model_statistics("identity_fp32");
    return s && (*s)[0].success.count == total;
  }));
}

} // namespace
} // namespace conch::tests

namespace conch::tests {
namespace {

class inprocess_limit : public server_fixture {};

// server_options::max_inflight: requests past it are answered UNAVAILABLE
// at once, and a request is admitted again once one in flight is answered.
TEST_F(inprocess_limit, past_max_inflight_requests_are_refused_at_once) {
  auto g = std::make_shared<gate>();
  register_gate_backend("gate_inprocess_limit", g);
  temp_repository repo;
  repo.add_model("held", gate_config("held", "gate_inprocess_limit", 0,
                                     "instance_group [ { count: 2 kind: KIND_CPU } ]"));
  auto o = options_for(repo.str());
  o.max_inflight = 2;
  auto srv = start(o);
  ASSERT_TRUE(srv) << srv.error().to_string();
  response_collector held;
  srv->submit(fp32_request("held", "1", 4, 0.0f, false), held.callback());
  srv->submit(fp32_request("held", "2", 4, 0.0f, false), held.callback());
  ASSERT_TRUE(g->wait_entered(2));

  response_collector refused;
  auto handle = srv->submit(fp32_request("held", "3", 4, 0.0f, false), refused.callback());
  EXPECT_TRUE(handle.completed());
  ASSERT_TRUE(refused.wait_finals(1));
  EXPECT_EQ(refused.final_response().error.code(), runtime::errc::unavailable);
  EXPECT_EQ(refused.final_response().error.message(),
            "the server is busy: too many requests in flight");
  // Counted in the server's metrics.
  EXPECT_NE(srv->metrics_text().find(
              R"(conch_requests_refused_total{frontend="in-process",port="0",reason="inflight"} 1)"),
            std::string::npos)
    << srv->metrics_text();

  g->open();
  ASSERT_TRUE(held.wait_finals(2));
  EXPECT_TRUE(held.final_response().error.is_ok()) << held.final_response().error.to_string();
  auto again = infer_sync(*srv, fp32_request("held", "4", 4, 0.0f, false));
  EXPECT_TRUE(again.error.is_ok()) << again.error.to_string();
}

TEST_F(inprocess_limit, a_negative_max_inflight_is_invalid) {
  temp_repository repo;
  auto o = options_for(repo.str());
  o.max_inflight = -1;
  auto srv = start(o);
  ASSERT_FALSE(srv);
  EXPECT_EQ(srv.error().code(), runtime::errc::invalid_argument);
  EXPECT_EQ(srv.error().message(), "max_inflight must not be negative");
}

} // namespace
} // namespace conch::tests
