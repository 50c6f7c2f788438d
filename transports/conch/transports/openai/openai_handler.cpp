#include "conch/transports/openai/openai_handler.hpp"

#include <memory>
#include <set>

#include "conch/transports/openai/encode_responses.hpp"
#include "conch/transports/openai/json_text.hpp"
#include "conch/transports/openai/routes.hpp"

namespace conch::transports::openai {

namespace {

using segments = std::vector<std::string>;

bool is(const segments& s, std::initializer_list<const char*> parts) {
  if (s.size() != parts.size())
    return false;
  size_t i = 0;
  for (const char* p : parts)
    if (s[i++] != p)
      return false;
  return true;
}

// The routes, and what each answers a method it does not take with.
enum class route {
  none,
  completions,
  chat,
  embeddings,
  models,
  model,
  model_load,
  model_unload,
  health,
  metrics,
};

struct route_match {
  route r = route::none;
  const char* method = "";
  api_group group = api_group::inference;
  bool needs_key = true;
};

route_match match(const segments& s) {
  if (is(s, {"v1", "completions"}))
    return {route::completions, "POST", api_group::inference};
  if (is(s, {"v1", "chat", "completions"}))
    return {route::chat, "POST", api_group::inference};
  if (is(s, {"v1", "embeddings"}))
    return {route::embeddings, "POST", api_group::embedding};
  if (is(s, {"v1", "models"}))
    return {route::models, "GET", api_group::model_repository};
  if (s.size() == 3 && s[0] == "v1" && s[1] == "models")
    return {route::model, "GET", api_group::model_repository};
  if (s.size() == 4 && s[0] == "v1" && s[1] == "models" && s[3] == "load")
    return {route::model_load, "POST", api_group::model_management};
  if (s.size() == 4 && s[0] == "v1" && s[1] == "models" && s[3] == "unload")
    return {route::model_unload, "POST", api_group::model_management};
  if (is(s, {"health", "ready"}))
    return {route::health, "GET", api_group::health, false};
  if (is(s, {"metrics"}))
    return {route::metrics, "GET", api_group::metrics, false};
  return {};
}

// The paths as sent may end in '/'; FastAPI's routes do not match those.
segments trimmed(const segments& s) {
  segments out = s;
  while (!out.empty() && out.back().empty())
    out.pop_back();
  if (!out.empty() && out.front().empty())
    out.erase(out.begin());
  return out;
}

} // namespace

// Two render threads: a second one keeps a long render from holding up
// every chat, and more would only wait on Python's GIL.
constexpr size_t render_threads = 2;
constexpr size_t max_waiting_renders = 1024;

openai_handler::openai_handler(openai_handler_options options, api_restrictions restricted)
  : options_(std::move(options)), restricted_(std::move(restricted)),
    admission_(options_.max_inflight, options_.stats) {
  if (options_.chat_template || options_.count_tokens)
    renderers_ = std::make_shared<render_pool>(render_threads, max_waiting_renders);
}

openai_handler::~openai_handler() {
  if (renderers_)
    renderers_->stop();
}

runtime::result<std::shared_ptr<openai_handler>> openai_handler::make(
  openai_handler_options options) {
  if (!options.server)
    return runtime::invalid_argument("an OpenAI handler needs a server");
  if (options.default_max_tokens < 0)
    return runtime::invalid_argument("default_max_tokens must not be negative");
  auto restricted = api_restrictions::make(options.restricted_apis);
  if (!restricted)
    return restricted.error();
  return std::shared_ptr<openai_handler>{
    new openai_handler{std::move(options), std::move(*restricted)}};
}

bool openai_handler::refuse(api_group group, const http::request& req,
                            http::responder& res) const {
  auto key = restricted_.missing_header(group, req.headers);
  if (!key)
    return false;
  res.send(error_response(openai_error(
    401, "This API is restricted, expecting header '" + std::string{*key} + "' with valid value",
    "authentication_error", "invalid_auth")));
  return true;
}

bool openai_handler::authorized(const http::request& req) const {
  if (options_.api_key.empty())
    return true;
  const auto* auth = req.headers.find("Authorization");
  constexpr std::string_view scheme = "Bearer ";
  if (auth == nullptr || auth->size() != scheme.size() + options_.api_key.size()
      || auth->compare(0, scheme.size(), scheme) != 0)
    return false;
  // In time that does not depend on where a wrong key differs.
  unsigned char diff = 0;
  for (size_t i = 0; i < options_.api_key.size(); ++i)
    diff |= static_cast<unsigned char>((*auth)[scheme.size() + i] ^ options_.api_key[i]);
  return diff == 0;
}

void openai_handler::handle(http::request_ptr req, http::responder res) {
  auto path = trimmed(req->segments);
  auto m = match(path);
  if (m.r == route::none) {
    res.send(error_response(detail_error(404, "Not Found")));
    return;
  }
  if (m.needs_key && !authorized(*req)) {
    res.send(error_response(openai_error(
      401, "Incorrect API key provided. The server expects it as 'Authorization: Bearer <key>'.",
      "invalid_request_error", "invalid_api_key")));
    return;
  }
  if (refuse(m.group, *req, res))
    return;
  if (req->method != m.method) {
    res.send(error_response(detail_error(405, "Method Not Allowed")));
    return;
  }
  switch (m.r) {
    case route::health:
      if (options_.server->ready())
        res.send(http::response{200});
      else
        res.send(error_response(detail_error(
          400, "Attached inference engine is not ready for inference requests.")));
      return;
    case route::metrics:
      res.send(http::response::text(200, options_.server->metrics_text(),
                                    "text/plain; version=0.0.4; charset=utf-8"));
      return;
    case route::models:
    case route::model: serve_models(path, std::move(res)); return;
    case route::model_load:
    case route::model_unload:
      serve_model_change(path[2], m.r == route::model_load, std::move(res));
      return;
    default: break;
  }
  auto ticket = admission_.try_admit();
  if (!ticket) {
    res.send(error_response(
      detail_error(503, "the server is busy: too many requests in flight")));
    return;
  }
  route_call call{options_, admission_, renderers_, std::move(req), std::move(res),
                  std::move(ticket)};
  switch (m.r) {
    case route::completions: serve_completion(std::move(call)); return;
    case route::chat: serve_chat(std::move(call)); return;
    default: serve_embeddings(std::move(call)); return;
  }
}

void openai_handler::serve_models(const std::vector<std::string>& path,
                                  http::responder res) const {
  auto shared = std::make_shared<http::responder>(std::move(res));
  std::string wanted = path.size() == 3 ? path[2] : std::string{};
  const int64_t created = options_.created;
  auto lora = options_.lora;
  options_.server->repository_index(
    true, [shared, wanted, created,
           lora = std::move(lora)](runtime::result<std::vector<runtime::index_entry>> index) {
      if (!index) {
        shared->send(error_response(from_status(index.error())));
        return;
      }
      std::set<std::string> ready;
      for (const auto& e : *index)
        ready.insert(e.name);
      auto ids = model_ids({ready.begin(), ready.end()}, lora);
      std::set<std::string> names{ids.begin(), ids.end()};
      if (wanted.empty()) {
        shared->send(json_response(model_list(ids, created)));
      } else if (names.count(wanted) == 0) {
        shared->send(error_response(detail_error(404, "Unknown model: " + wanted)));
      } else {
        shared->send(json_response(model_object(wanted, created)));
      }
    });
}

void openai_handler::serve_model_change(const std::string& model, bool load,
                                        http::responder res) const {
  auto shared = std::make_shared<http::responder>(std::move(res));
  const int64_t created = options_.created;
  auto done = [shared, model, load, created](runtime::status s) {
    if (!s.is_ok()) {
      shared->send(error_response(from_status(s)));
      return;
    }
    if (load) {
      shared->send(json_response(model_object(model, created)));
      return;
    }
    json_text j;
    j.begin_object();
    j.member("status", "success");
    j.member("model", model);
    j.end_object();
    shared->send(json_response(j.take()));
  };
  if (load)
    options_.server->load(model, runtime::load_parameters{}, std::move(done));
  else
    options_.server->unload(model, false, std::move(done));
}

} // namespace conch::transports::openai
