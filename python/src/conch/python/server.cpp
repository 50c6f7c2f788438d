#include "conch/python/server.hpp"

#include <future>
#include <memory>

#include <pybind11/stl.h>

#include "conch/python/status.hpp"

namespace conch::python {

namespace py = pybind11;
using runtime::status;

std::unique_ptr<py_server> py_server::start(actors::server_options options) {
  auto started = [&] {
    nogil released;
    return actors::server_host::start(std::move(options));
  }();
  if (!started)
    throw_if_error(started.error());
  auto out = std::make_unique<py_server>();
  out->host_ = host_ptr{std::move(*started)};
  return out;
}

py_server::~py_server() {
  if (host_ && interpreter_alive()) {
    // Destroying the host stops the server and joins Conch's threads, which
    // may be waiting for the GIL to hand a response to Python.
    nogil released;
    host_.reset();
  }
}

py_server::host_ptr py_server::host() const {
  if (!host_)
    raise(runtime::errc::invalid_argument, "Server not started");
  return host_;
}

void py_server::drop(host_ptr& h) {
  // The last reference destroys the actor system; that must not happen while
  // holding the GIL (see the destructor).
  if (h.use_count() == 1) {
    nogil released;
    h.reset();
  }
  h.reset();
}

void py_server::stop() {
  if (!host_) {
    // Stopped, or stopping on another thread: wait for that stop, if it
    // still runs, and return without raising; its caller reports the outcome.
    auto running = stopping_.lock();
    if (!running)
      return;
    {
      nogil released;
      (void) running->server().stop();
    }
    drop(running);
    return;
  }
  auto h = host_;
  host_.reset();
  stopping_ = h;
  status st;
  {
    nogil released;
    st = h->server().stop();
    if (h.use_count() == 1)
      h.reset();
  }
  drop(h);
  throw_if_error(st);
}

bool py_server::live() {
  auto h = host();
  bool out = h->server().live();
  drop(h);
  return out;
}

bool py_server::ready() {
  auto h = host();
  bool out = h->server().ready();
  drop(h);
  return out;
}

py::dict py_server::metadata() {
  auto h = host();
  auto md = h->server().metadata();
  drop(h);
  py::dict out;
  out["name"] = md.name;
  out["version"] = md.version;
  out["extensions"] = py::cast(md.extensions);
  return out;
}

bool py_server::model_ready(const std::string& name, int64_t version) {
  auto h = host();
  bool out = false;
  if (h->server().model_ready(name, version)) {
    // The model's own check (is_ready()) may run Python on another thread
    // for up to its timeout: the GIL is released meanwhile.
    auto answer = std::make_shared<std::promise<bool>>();
    auto ready = answer->get_future();
    h->server().check_model_ready(name, version,
                                  [answer](bool r) { answer->set_value(r); });
    nogil released;
    out = ready.get();
  }
  drop(h);
  return out;
}

namespace {

py::list tensors_of(const std::vector<runtime::tensor_metadata>& tensors) {
  py::list out;
  for (const auto& t : tensors) {
    py::dict d;
    d["name"] = t.name;
    d["datatype"] = t.datatype;
    d["shape"] = py::cast(t.shape);
    out.append(d);
  }
  return out;
}

} // namespace

py::dict py_server::model_metadata(const std::string& name, int64_t version) {
  auto h = host();
  auto md = h->server().model_metadata(name, version);
  drop(h);
  if (!md)
    throw_if_error(md.error());
  py::dict out;
  out["name"] = md->name;
  out["versions"] = py::cast(md->versions);
  out["platform"] = md->platform;
  out["inputs"] = tensors_of(md->inputs);
  out["outputs"] = tensors_of(md->outputs);
  return out;
}

} // namespace conch::python
