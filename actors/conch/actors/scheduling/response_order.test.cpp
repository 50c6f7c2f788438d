#include "conch/actors/scheduling/response_order.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

using namespace conch;
using namespace conch::actors;

namespace {

struct delivered {
  std::vector<std::string> ids;
  runtime::job_ptr job(const std::string& id) {
    runtime::inference_request request;
    request.id = id;
    return std::make_shared<runtime::inference_job>(
      std::move(request), [this](runtime::inference_response&& r) { ids.push_back(r.id); });
  }
};

held_response final_response(const runtime::job_ptr& job) {
  auto r = std::make_shared<runtime::inference_response>();
  r->final = true;
  return {job, std::move(r)};
}

} // namespace

TEST(response_order, answers_in_arrival_order_whatever_order_they_finish_in) {
  delivered out;
  response_order order{caf::actor_addr{}};
  auto a = out.job("a");
  auto b = out.job("b");
  auto c = out.job("c");
  for (const auto& job : {a, b, c})
    order.admit(*job);
  order.arrive(final_response(c));
  order.arrive(final_response(b));
  EXPECT_TRUE(out.ids.empty()) << "nothing goes out before the first request's answer";
  order.arrive(final_response(a));
  EXPECT_EQ(out.ids, (std::vector<std::string>{"a", "b", "c"}));
}

TEST(response_order, release_delivers_what_it_holds) {
  delivered out;
  response_order order{caf::actor_addr{}};
  auto a = out.job("a");
  auto b = out.job("b");
  order.admit(*a);
  order.admit(*b);
  order.arrive(final_response(b));
  order.release();
  EXPECT_EQ(out.ids, (std::vector<std::string>{"b"}));
  // Its router finds no scheduler: a job answering now is delivered at once.
  runtime::inference_response r;
  r.final = true;
  a->respond(std::move(r));
  EXPECT_EQ(out.ids, (std::vector<std::string>{"b", "a"}));
}
