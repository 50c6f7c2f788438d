#include "conch/transports/http/cloud/sagemaker_mme.hpp"

#include <array>
#include <optional>
#include <string>
#include <utility>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/runtime/logging/log.hpp"
#include "conch/transports/http/cloud/cloud_request.hpp"
#include "conch/transports/http/cloud/model_folder.hpp"
#include "conch/transports/http/cloud/sagemaker_load_body.hpp"
#include "conch/transports/http/cloud/sagemaker_handler.hpp"
#include "conch/transports/http/kserve/json_reply.hpp"

namespace conch::transports::http::cloud {

namespace {

using feature = kserve::feature;
using shared_responder = std::shared_ptr<responder>;

constexpr std::string_view target_header = "X-Amzn-SageMaker-Target-Model";

// A /models path: the model's name (empty for the collection) and whether
// it ends in /invoke.
struct models_path {
  std::string name;
  bool invoke = false;
};

std::optional<models_path> parse_path(std::string_view path) {
  constexpr std::string_view prefix = "/models";
  if (path.substr(0, prefix.size()) != prefix)
    return std::nullopt;
  path.remove_prefix(prefix.size());
  if (!path.empty() && path.front() != '/')
    return std::nullopt;
  if (!path.empty())
    path.remove_prefix(1);
  models_path out;
  auto slash = path.find('/');
  out.name = std::string{path.substr(0, slash)};
  if (slash == std::string_view::npos)
    return out;
  if (out.name.empty() || path.substr(slash) != "/invoke")
    return std::nullopt;
  out.invoke = true;
  return out;
}

std::string body_text(const response& r) {
  std::string out;
  for (const auto& b : r.body)
    out.append(reinterpret_cast<const char*>(b.data()), b.size());
  return out;
}

// Triton answers the errors of a multi-model request 400, or 507 for want
// of memory; Conch keeps 503 and 429 (a busy or stopping server) and 403 (a
// restricted group) so that each reads as what it is.
void to_mme_answer(response& r) {
  to_sagemaker_answer(r);
  if (r.status < 400 || r.status == 503 || r.status == 429 || r.status == 403)
    return;
  r.status = out_of_memory(body_text(r)) ? 507 : 400;
}

// The answer for a failed load or unload: 409 for a repository or name
// registered already, 503 for a server that is stopping, 507 for want of
// memory, 400 otherwise.
response repository_error(const runtime::status& st) {
  int code = st.code() == runtime::errc::already_exists ? 409
             : st.code() == runtime::errc::unavailable  ? 503
             : out_of_memory(st.message())              ? 507
                                                        : 400;
  return response::error(code, st.message());
}

void write_model(rapidjson::Writer<rapidjson::StringBuffer>& w, const sagemaker_model& m) {
  w.StartObject();
  w.Key("modelName");
  w.String(m.name.c_str(), static_cast<rapidjson::SizeType>(m.name.size()));
  w.Key("modelUrl");
  w.String(m.repository.c_str(), static_cast<rapidjson::SizeType>(m.repository.size()));
  w.EndObject();
}

void list_models(const sagemaker_mme& mme, responder& res) {
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w{out};
  w.StartObject();
  w.Key("models");
  w.StartArray();
  for (const auto& m : mme.models->list())
    write_model(w, m);
  w.EndArray();
  w.EndObject();
  res.send(kserve::json_reply(out.GetString()));
}

void get_model(const sagemaker_mme& mme, const std::string& name, responder& res) {
  auto m = mme.models->find(name);
  if (!m) {
    res.send(response{404});
    return;
  }
  rapidjson::StringBuffer out;
  rapidjson::Writer<rapidjson::StringBuffer> w{out};
  write_model(w, *m);
  res.send(kserve::json_reply(out.GetString()));
}

std::string header_or(const request& req, const std::string& fallback) {
  const auto* v = req.headers.find(target_header);
  return v != nullptr && !v->empty() ? *v : fallback;
}

void load_model(const sagemaker_mme& mme, const request& req, responder& res,
                kserve::admission::ticket ticket) {
  auto body = parse_sagemaker_load_body(req);
  if (!body) {
    res.send(response::error(400, body.error().message()));
    return;
  }
  const auto& name = body->model_name;
  auto folder = locate_model_folder(body->url);
  if (!folder) {
    CONCH_LOG_WARN << "SageMaker load of '" << name << "' refused: " << folder.error().message();
    res.send(response::error(400, folder.error().message()));
    return;
  }
  std::map<std::string, std::string> mapping;
  auto target = header_or(req, name);
  if (!folder->directory.empty())
    mapping.emplace(folder->directory, target);
  sagemaker_model loaded{name, folder->repository, target};
  auto gateway = mme.kserve->server();
  auto models = mme.models;
  auto reply = std::make_shared<responder>(std::move(res));
  gateway->register_repository(
    folder->repository, std::move(mapping),
    [gateway, models, reply, ticket, loaded](runtime::status st) {
      if (!st.is_ok()) {
        reply->send(repository_error(st));
        return;
      }
      gateway->load(loaded.target, {}, [gateway, models, reply, ticket, loaded](runtime::status st) {
        if (st.is_ok()) {
          models->add(loaded);
          reply->send(response{200});
          return;
        }
        // Answered once the repository is gone again, so a retry can register it.
        gateway->unregister_repository(loaded.repository,
                                       [reply, ticket, st](runtime::status) {
                                         reply->send(repository_error(st));
                                       });
      });
    });
}

// Unloads the model SageMaker loaded as `name`: the server's model it
// recorded then (whatever a target header says now, so the model unloaded
// and the repository unregistered always belong together).
void unload_model(const sagemaker_mme& mme, const std::string& name, responder& res,
                  kserve::admission::ticket ticket) {
  auto m = mme.models->take(name);
  if (!m) {
    res.send(response{404});
    return;
  }
  auto gateway = mme.kserve->server();
  auto models = mme.models;
  auto reply = std::make_shared<responder>(std::move(res));
  gateway->unload(m->target, true, [gateway, models, reply, ticket, m = *m](runtime::status st) {
    // A model that is gone already is as good as unloaded.
    if (!st.is_ok() && st.code() != runtime::errc::not_found) {
      models->add(m);
      reply->send(repository_error(st));
      return;
    }
    gateway->unregister_repository(m.repository, [reply, ticket](runtime::status st) {
      reply->send(st.is_ok() ? response{200} : repository_error(st));
    });
  });
}

void invoke_model(const sagemaker_mme& mme, request_ptr req, const std::string& name,
                  responder res) {
  // Invoking is inference: refused before anything, even whether the model
  // is loaded, is told to a client without the group's header.
  if (auto refused = mme.kserve->refuse_restricted(feature::inference, req->headers)) {
    res.send(std::move(*refused));
    return;
  }
  if (req->method != "POST") {
    res.send(response::error(405, "Method Not Allowed"));
    return;
  }
  auto m = mme.models->find(name);
  if (!m) {
    res.send(response{404});
    return;
  }
  if (auto refused = announce_binary(*req, binary_content_type)) {
    res.send(std::move(*refused));
    return;
  }
  retarget(*req, {"v2", "models", header_or(*req, m->target), "infer"});
  res.set_transform(&to_mme_answer);
  mme.kserve->handle(std::move(req), std::move(res));
}

} // namespace

void serve_models(const sagemaker_mme& mme, request_ptr req, responder res) {
  auto path = parse_path(req->path);
  if (!path) {
    res.send(response{400});
    return;
  }
  if (path->invoke && req->method != "GET") {
    invoke_model(mme, std::move(req), path->name, std::move(res));
    return;
  }
  if (auto refused = mme.kserve->refuse_restricted(feature::model_repository, req->headers)) {
    res.send(std::move(*refused));
    return;
  }
  if (req->method == "GET") {
    if (path->name.empty())
      list_models(mme, res);
    else
      get_model(mme, path->name, res);
    return;
  }
  bool load = req->method == "POST";
  bool unload = req->method == "DELETE" && !path->name.empty();
  if (!load && !unload) {
    res.send(response{400});
    return;
  }
  auto ticket = mme.kserve->admit();
  if (!ticket) {
    res.send(kserve::error_reply(ticket.error()));
    return;
  }
  if (load)
    load_model(mme, *req, res, std::move(*ticket));
  else
    unload_model(mme, path->name, res, std::move(*ticket));
}

bool out_of_memory(std::string_view message) {
  static constexpr std::array<std::string_view, 17> signs = {
    "CUDA out of memory",          "CUDA_OUT_OF_MEMORY",
    "Out of memory",               "Out Of Memory",
    "out of memory",               "MemoryError",
    "OutOfMemory",                 "OOM",
    "Dst tensor is not initialized", "Src tensor is not initialized",
    "CNMEM_STATUS_OUT_OF_MEMORY",  "CUDNN_STATUS_NOT_INITIALIZED",
    "CUBLAS_STATUS_ALLOC_FAILED",  "CUBLAS_STATUS_NOT_INITIALIZED",
    "Failed to allocate memory",   "failed to allocate memory",
    "No space left on device"};
  for (auto sign : signs)
    if (message.find(sign) != std::string_view::npos)
      return true;
  return false;
}

} // namespace conch::transports::http::cloud
