// Every JSON body the KServe routes read goes through parse_json_object and
// so through the one JSON policy: a depth bomb is INVALID_ARG on each.
#include "conch/transports/http/kserve/json_body.hpp"

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "conch/transports/http/kserve/log_settings_body.hpp"
#include "conch/transports/http/kserve/repository_bodies.hpp"
#include "conch/transports/http/kserve/shared_memory_bodies.hpp"
#include "conch/transports/http/kserve/test/post_with_body.hpp"
#include "conch/transports/http/kserve/trace_settings_body.hpp"

namespace conch::transports::http::kserve {
namespace {

using runtime::errc;
using test::with_body;

// `unit` repeated to 1 MiB, never closed.
std::string bomb(const std::string& unit) {
  std::string out;
  while (out.size() < (1u << 20))
    out += unit;
  return out;
}

// An object nested `depth` levels deep: {"a":{"a":...{}...}}.
std::string objects(int depth) {
  std::string json;
  for (int i = 1; i < depth; ++i)
    json += "{\"a\":";
  return json + "{}" + std::string(depth - 1, '}');
}

template <class T>
runtime::status error_of(const runtime::result<T>& r) {
  return r ? runtime::status::ok() : r.error();
}

// Each body parser, as a status.
std::vector<std::pair<const char*, std::function<runtime::status(const request&)>>> parsers() {
  return {
    {"parse_json_object",
     [](const request& r) {
       rapidjson::Document doc;
       return parse_json_object(r, doc);
     }},
    {"index", [](const request& r) { return error_of(parse_index_body(r)); }},
    {"load", [](const request& r) { return error_of(parse_load_body(r)); }},
    {"unload", [](const request& r) { return error_of(parse_unload_body(r)); }},
    {"logging", [](const request& r) { return error_of(parse_log_settings_body(r)); }},
    {"trace", [](const request& r) { return error_of(parse_trace_settings_body(r)); }},
    {"system shm", [](const request& r) { return error_of(parse_system_register_body(r)); }},
    {"cuda shm", [](const request& r) { return error_of(parse_cuda_register_body(r)); }},
  };
}

TEST(json_body, depth_bombs_are_invalid_argument_on_every_body) {
  for (const auto& unit : {std::string{"["}, std::string{"{\"a\":"}}) {
    const auto& req = with_body(bomb(unit));
    for (const auto& [name, parse] : parsers()) {
      auto st = parse(req);
      EXPECT_EQ(st.code(), errc::invalid_argument) << name << " " << unit;
      EXPECT_NE(st.message().find("limit of 100 levels"), std::string::npos)
        << name << ": " << st.message();
    }
  }
}

TEST(json_body, nesting_to_the_limit_still_parses) {
  rapidjson::Document doc;
  ASSERT_TRUE(parse_json_object(with_body(objects(100)), doc));
  EXPECT_TRUE(doc["a"].IsObject());
  auto deeper = parse_json_object(with_body(objects(101)), doc);
  EXPECT_EQ(deeper.code(), errc::invalid_argument);
  // A deep but legal member does not disturb the fields a body reads.
  auto index = parse_index_body(with_body(R"({"ready":true,"x":)" + objects(99) + "}"));
  ASSERT_TRUE(index) << index.error().to_string();
  EXPECT_TRUE(*index);
}

TEST(json_body, the_body_must_be_an_object) {
  rapidjson::Document doc;
  auto st = parse_json_object(with_body("[1]"), doc);
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_EQ(st.message(), "the request body must be a JSON object");
}

} // namespace
} // namespace conch::transports::http::kserve
