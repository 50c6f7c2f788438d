#include "conch/python/backends/interpreter_backend.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "conch/python/backends/backend_request.hpp"
#include "conch/python/backends/bls_gateway.hpp"
#include "conch/python/gil.hpp"
#include "conch/runtime/backends/common/job_output.hpp"
#include "conch/runtime/model_config/json.hpp"

namespace conch::python::backends {

namespace py = pybind11;
namespace rb = runtime::backends;
using runtime::status;

namespace {

constexpr const char* interpreter_gone = "the Python interpreter is shutting down";

/// conch._backend, where the Python half of these backends lives.
py::module_ python_half() { return py::module_::import("conch._backend"); }

/// The message of the Python exception being handled. conch._backend raises
/// errors whose text is meant for the model's reason or the response.
std::string message_of(py::error_already_set& e) {
  try {
    return py::str(e.value()).cast<std::string>();
  } catch (...) {
    return e.what();
  }
}

/// Runs `fn` with the GIL. A Python exception it raises becomes an error
/// status of `code` with the exception's message; a finalizing interpreter
/// makes it UNAVAILABLE.
template <class F>
status call_python(F&& fn, runtime::errc code = runtime::errc::internal) {
  std::string failure;
  bool ran = with_gil([&] {
    try {
      fn();
    } catch (py::error_already_set& e) {
      failure = message_of(e);
    }
  });
  if (!ran)
    return runtime::unavailable(interpreter_gone);
  if (!failure.empty())
    return status{code, std::move(failure)};
  return status::ok();
}

std::string kind_name(inference::ModelInstanceGroup::Kind kind) {
  return inference::ModelInstanceGroup::Kind_Name(kind);
}

// Executions that had ExecutionAbandoned raised in them and have not
// returned yet. Changed with the GIL held only.
std::atomic<int> interrupted_executions{0};

// Which thread runs an instance's execute() right now, and whether
// ExecutionAbandoned was raised in it. Read and written with the GIL held
// only, so that the raise can never hit a thread that has left execute().
struct execution_state {
  unsigned long thread = 0;
  bool raised = false;
};

// Runs with the GIL (a pending call): raises ExecutionAbandoned in the thread
// that runs the execution `arg` points to, if it still runs it.
void raise_abandoned(void* arg) {
  std::unique_ptr<std::shared_ptr<execution_state>> owned{
    static_cast<std::shared_ptr<execution_state>*>(arg)};
  auto& state = **owned;
  if (state.thread == 0 || state.raised)
    return;
  try {
    auto type = python_half().attr("ExecutionAbandoned");
    if (PyThreadState_SetAsyncExc(state.thread, type.ptr()) == 1) {
      state.raised = true;
      interrupted_executions.fetch_add(1);
    }
  } catch (py::error_already_set& e) {
    e.discard_as_unraisable("conch: interrupting an abandoned model");
  }
}

// Marks the calling thread as running an execution, for the scope; with the
// GIL held on both ends.
class executing_scope {
 public:
  explicit executing_scope(execution_state& s) : state_(s) {
    state_.thread = PyThread_get_thread_ident();
  }
  ~executing_scope() {
    // An ExecutionAbandoned set but not raised yet (execute() returned first)
    // would go off in the next Python code of this thread, which keeps its
    // state between executions (gil.hpp, rule 2): it is withdrawn.
    if (state_.raised)
      PyThreadState_SetAsyncExc(state_.thread, nullptr);
    state_.thread = 0;
    if (std::exchange(state_.raised, false))
      interrupted_executions.fetch_sub(1);
  }
  executing_scope(const executing_scope&) = delete;
  executing_scope& operator=(const executing_scope&) = delete;

 private:
  execution_state& state_;
};

/// A python instance's is_ready() (conch._backend.readiness): the query is
/// handed to a thread that holds the GIL, so the asking thread (an HTTP
/// loop, a gRPC thread) never waits for it; the Python side bounds the wait.
class python_readiness_probe final : public rb::readiness_probe,
                                     public std::enable_shared_from_this<python_readiness_probe> {
 public:
  // The reference may go on any thread (py_ref defers it when need be).
  explicit python_readiness_probe(py_ref check) : check_(std::move(check)) {}

  void probe(std::function<void(bool)> done) override {
    // A finalizing interpreter drops deferred calls: nothing would answer.
    if (!interpreter_alive())
      return done(false);
    using call = std::pair<std::shared_ptr<python_readiness_probe>, std::function<void(bool)>>;
    call_with_gil(
      [](void* arg) {
        std::unique_ptr<call> c{static_cast<call*>(arg)};
        try {
          py::handle(c->first->check_.get()).attr("query")(py::cpp_function(c->second));
        } catch (py::error_already_set& e) {
          e.discard_as_unraisable("conch: a model's readiness check");
          c->second(false); // not asked: not known to be ready
        } catch (...) {
          c->second(false);
        }
      },
      new call{shared_from_this(), std::move(done)}, true);
  }

 private:
  py_ref check_;
};

class interpreter_instance final : public rb::backend_instance {
 public:
  /// `execute` is conch._backend.execute, looked up once: importing the
  /// module for each batch cost a request a few microseconds.
  interpreter_instance(py_ref runner, py_ref execute, std::shared_ptr<const model_facts> facts,
                       std::shared_ptr<rb::readiness_probe> readiness)
    : runner_(std::move(runner)), execute_(std::move(execute)), facts_(std::move(facts)),
      readiness_(std::move(readiness)) {}

  std::shared_ptr<rb::readiness_probe> readiness() const override { return readiness_; }

  ~interpreter_instance() override {
    // Possibly the last step of a thread abandoned past the exit timeout,
    // racing the interpreter's finalization.
    with_gil_or_park([this] {
      try {
        python_half().attr("finalize")(py::handle(runner_.get()));
      } catch (py::error_already_set& e) {
        e.discard_as_unraisable("conch: finalizing a model instance");
      }
      runner_.reset();
      execute_.reset();
    });
  }

  void execute(rb::batch& jobs) override {
    std::vector<backend_request_ptr> requests;
    requests.reserve(jobs.size());
    for (auto& job : jobs) {
      requests.push_back(std::make_shared<backend_request>(job, facts_));
      // The responses of a non-decoupled model go out once this thread let
      // go of the GIL, which the client needs next.
      if (!facts_->decoupled)
        requests.back()->defer(true);
    }
    auto outcome = call_python([&] {
      py::list batch(requests.size());
      for (size_t i = 0; i < requests.size(); ++i)
        batch[i] = py::cast(requests[i]);
      // The inputs are ready for the model: the input phase ends here
      // (COMPUTE_INPUT_END), the model's own time begins.
      for (auto& job : jobs)
        runtime::backends::common::mark_input_end(*job);
      executing_scope scope{*execution_};
      py::handle(execute_.get())(py::handle(runner_.get()), batch);
    });
    for (auto& r : requests) {
      r->execute_returned();
      r->flush();
    }
    if (!outcome) {
      for (auto& r : requests)
        r->fail_unless_answered(outcome.message());
      return;
    }
    if (facts_->decoupled)
      return;
    // A request whose sender the model took is the sender's to answer, also
    // after execute() returned (it fails if the model lets go of it first).
    for (auto& r : requests)
      if (!r->rescheduled() && !r->sender_taken())
        r->fail_unless_answered("model '" + facts_->name
                                + "' sent no final response for request '" + r->request().id
                                + "'");
  }

  // An execute() that outlived the exit timeout gets ExecutionAbandoned
  // raised in its thread (by whichever thread next holds the GIL), so the
  // thread can end before the interpreter finalizes: CPython 3.11-3.13
  // would otherwise end it by unwinding its stack without the GIL.
  void interrupt() noexcept override {
    try {
      call_with_gil(raise_abandoned, new std::shared_ptr<execution_state>(execution_), true);
    } catch (...) {
      // Out of memory: the thread stays as it is.
    }
  }

 private:
  py_ref runner_;
  py_ref execute_;
  std::shared_ptr<const model_facts> facts_;
  std::shared_ptr<rb::readiness_probe> readiness_;
  std::shared_ptr<execution_state> execution_ = std::make_shared<execution_state>();
};

class interpreter_model final : public rb::backend_model {
 public:
  interpreter_model(py_ref runner, std::shared_ptr<const model_facts> facts)
    : runner_(std::move(runner)), facts_(std::move(facts)) {}

  ~interpreter_model() override {
    with_gil_or_park([this] { runner_.reset(); });
  }

  runtime::result<std::unique_ptr<rb::backend_instance>>
  create_instance(const rb::instance_context& ctx) override {
    py_ref instance;
    py_ref execute;
    std::shared_ptr<rb::readiness_probe> readiness;
    auto outcome = call_python([&] {
      py::dict d;
      d["name"] = ctx.name;
      d["kind"] = kind_name(ctx.kind);
      d["device_id"] = ctx.device_id;
      d["index"] = ctx.index;
      auto half = python_half();
      auto made = half.attr("create_instance")(py::handle(runner_.get()), d);
      instance = py_ref::borrow(made.ptr());
      execute = py_ref::borrow(half.attr("execute").ptr());
      py::object check;
      try {
        check = half.attr("readiness_check")(made);
      } catch (py::error_already_set&) {
        // The model's instance exists (its initialize() ran): it is
        // finalized before the error fails the load, as one that loaded is.
        try {
          half.attr("finalize")(made);
        } catch (py::error_already_set& e) {
          e.discard_as_unraisable("conch: finalizing a model instance");
        }
        instance.reset();
        throw;
      }
      if (!check.is_none())
        readiness = std::make_shared<python_readiness_probe>(py_ref::borrow(check.ptr()));
    });
    if (!outcome)
      return outcome;
    return std::unique_ptr<rb::backend_instance>{
      std::make_unique<interpreter_instance>(std::move(instance), std::move(execute), facts_,
                                             std::move(readiness))};
  }

  bool blocking() const noexcept override { return true; }

 private:
  py_ref runner_;
  std::shared_ptr<const model_facts> facts_;
};

std::shared_ptr<const model_facts> facts_of(const rb::model_context& ctx) {
  auto facts = std::make_shared<model_facts>();
  facts->name = ctx.name;
  facts->version = ctx.version;
  facts->decoupled = ctx.config->model_transaction_policy().decoupled();
  facts->iterative = ctx.config->sequence_batching().iterative_sequence();
  for (const auto& out : ctx.config->output())
    facts->outputs.push_back(out.name());
  return facts;
}

runtime::result<std::unique_ptr<rb::backend_model>> load(const std::string& backend,
                                                         const std::string& model_file,
                                                         const rb::model_context& ctx) {
  if (!ctx.config)
    return runtime::internal_error("model '" + ctx.name + "': no configuration");
  auto config_json = runtime::model_config::to_json(*ctx.config);
  auto facts = facts_of(ctx);
  py_ref runner;
  auto outcome = call_python([&] {
    py::dict d;
    d["name"] = ctx.name;
    d["version"] = ctx.version;
    d["model_path"] = ctx.model_path.string();
    d["version_path"] = ctx.version_path.string();
    d["repository_path"] = ctx.repository_path.string();
    d["config_json"] = config_json;
    d["config"] = py::module_::import("json").attr("loads")(config_json);
    d["bls"] = std::make_shared<bls_gateway>(ctx.models, facts);
    if (!model_file.empty())
      d["backend_model_file"] = model_file;
    auto made = python_half().attr("load_model")(backend, d);
    runner = py_ref::borrow(made.ptr());
  });
  if (!outcome)
    return outcome;
  return std::unique_ptr<rb::backend_model>{
    std::make_unique<interpreter_model>(std::move(runner), std::move(facts))};
}

status complete(const std::string& backend, const std::string& model_file,
                inference::ModelConfig& config, const std::filesystem::path& model_path) {
  auto config_json = runtime::model_config::to_json(config);
  std::string completed;
  auto outcome = call_python(
    [&] {
      auto json = py::module_::import("json");
      auto out = python_half().attr("complete_config")(backend, json.attr("loads")(config_json),
                                                       model_path.string(), model_file);
      completed = json.attr("dumps")(out).cast<std::string>();
    },
    runtime::errc::invalid_argument);
  if (!outcome)
    return outcome;
  auto parsed = runtime::model_config::from_json(completed);
  if (!parsed)
    return parsed.error().with_prefix("the configuration auto-completed by the " + backend
                                      + " backend is invalid: ");
  config = std::move(*parsed);
  return status::ok();
}

} // namespace

rb::backend_entry interpreter_backend(std::string name, std::string model_file) {
  rb::backend_entry entry;
  entry.name = name;
  entry.factory = [name, model_file](const rb::model_context& ctx) {
    return load(name, model_file, ctx);
  };
  entry.complete_config = [name, model_file](inference::ModelConfig& config,
                                             const std::filesystem::path& model_path) {
    return complete(name, model_file, config, model_path);
  };
  return entry;
}

std::optional<rb::backend_entry> python_based_backend(const std::string& name,
                                                      const std::filesystem::path& directory) {
  // The backends that run in this interpreter are never files of the
  // directory; any other name is a python-based backend when the directory
  // holds <name>/model.py.
  if (name == "python" || name == "onnxruntime")
    return std::nullopt;
  std::error_code ec;
  auto file = directory / name / "model.py";
  if (!std::filesystem::is_regular_file(file, ec))
    return std::nullopt;
  return interpreter_backend("python", file.string());
}

int interrupted_executions_running() noexcept { return interrupted_executions.load(); }

void register_interpreter_backends() {
  auto& r = rb::registry::global();
  r.add(interpreter_backend("python"));
  r.add(interpreter_backend("onnxruntime"));
  r.add_directory_resolver(python_based_backend);
}

} // namespace conch::python::backends
