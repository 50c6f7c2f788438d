#include "conch/actors/supervision/guarded_actor.hpp"

#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include <caf/response_promise.hpp>
#include <gtest/gtest.h>

#include "conch/actors/messages.hpp"
#include "conch/actors/test/deterministic_fixture.hpp"

using namespace conch::runtime;

namespace conch::actors {
namespace {

// Throws on `init_atom`, throws after taking charge of the answer on
// `load_atom` (answered by `stop_atom`), and answers `poll_atom`.
class throwing_actor : public guarded_actor {
 public:
  explicit throwing_actor(caf::actor_config& cfg) : guarded_actor(cfg, "the test actor") {}

  caf::behavior make_behavior() override {
    return {
      [](init_atom) -> status { throw std::bad_alloc{}; },
      [this](load_atom) -> caf::result<status> {
        held_ = make_response_promise();
        throw std::runtime_error("after the promise");
      },
      [this](stop_atom) {
        if (held_.pending())
          held_.deliver(status::ok());
      },
      [](poll_atom) { return status::ok(); },
      [](unload_atom) { throw 42; },
    };
  }

 private:
  caf::response_promise held_;
};

struct guarded_actor_test : test::deterministic_fixture {
  caf::actor testee = sys.spawn<throwing_actor>();

  ~guarded_actor_test() override {
    caf::anon_send_exit(testee, caf::exit_reason::kill);
    run();
  }

  // The answers to one request, each as a status (an error as INTERNAL).
  template <class Atom>
  std::shared_ptr<std::vector<status>> ask(Atom atom) {
    auto out = std::make_shared<std::vector<status>>();
    sys.spawn([=](caf::event_based_actor* self) {
      self->request(testee, caf::infinite, atom)
        .then([=](status& st) { out->push_back(st); },
              [=](caf::error& err) { out->push_back(internal_error("caf: " + to_string(err))); });
    });
    run();
    return out;
  }
};

TEST_F(guarded_actor_test, a_throwing_handler_answers_its_request_and_the_actor_goes_on) {
  auto threw = ask(init_atom_v);
  ASSERT_EQ(threw->size(), 1u);
  EXPECT_EQ((*threw)[0].code(), errc::internal);
  EXPECT_NE((*threw)[0].message().find("the test actor"), std::string::npos)
    << (*threw)[0].message();
  EXPECT_NE((*threw)[0].message().find("bad_alloc"), std::string::npos) << (*threw)[0].message();
  auto unknown = ask(unload_atom_v);
  ASSERT_EQ(unknown->size(), 1u);
  EXPECT_NE((*unknown)[0].message().find("unknown exception"), std::string::npos);
  auto fine = ask(poll_atom_v);
  ASSERT_EQ(fine->size(), 1u);
  EXPECT_TRUE((*fine)[0]) << (*fine)[0].to_string();
}

TEST_F(guarded_actor_test, a_promise_made_before_the_exception_keeps_the_answer) {
  auto answers = ask(load_atom_v);
  EXPECT_TRUE(answers->empty()) << "the guard answered a request whose handler owned the answer";
  caf::anon_send(testee, stop_atom_v);
  run();
  ASSERT_EQ(answers->size(), 1u);
  EXPECT_TRUE((*answers)[0]) << (*answers)[0].to_string();
}

TEST(guarded_jobs, a_throwing_job_handler_fails_the_job_once) {
  std::vector<status> seen;
  auto watched = std::make_shared<inference_job>(
    inference_request{}, [&](inference_response&& r) { seen.push_back(r.error); });
  run_guarded(watched, "the test", [] { throw std::length_error("too long"); });
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].code(), errc::internal);
  EXPECT_NE(seen[0].message().find("too long"), std::string::npos) << seen[0].message();
  run_guarded(watched, "the test", [] { throw std::length_error("again"); });
  EXPECT_EQ(seen.size(), 1u);
}

} // namespace
} // namespace conch::actors
