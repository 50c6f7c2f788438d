#include "conch/runtime/backends/ensemble/ensemble_graph.hpp"

#include <algorithm>
#include <map>


namespace conch::runtime::backends::ensemble {

namespace {

std::string in_quotes(const std::string& s) {
  return "'" + s + "'";
}

// The tensors of the graph by name, added as they are met.
class tensor_names {
 public:
  explicit tensor_names(ensemble_graph& g) : g_(g) {}

  size_t id(const std::string& name) {
    auto [i, added] = ids_.emplace(name, g_.tensors.size());
    if (added) {
      g_.tensors.push_back(name);
      g_.producer.push_back(-2); // not written yet
      g_.consumers.emplace_back();
    }
    return i->second;
  }

 private:
  ensemble_graph& g_;
  std::map<std::string, size_t> ids_;
};

// True when every step can run: walks the data flow from the ensemble's
// inputs, as the steps would run.
bool runs_through(const ensemble_graph& g, std::vector<bool>& ran) {
  std::vector<bool> ready(g.tensors.size(), false);
  for (auto t : g.inputs)
    ready[t] = true;
  ran.assign(g.steps.size(), false);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t s = 0; s < g.steps.size(); ++s) {
      if (ran[s])
        continue;
      const auto& in = g.steps[s].inputs;
      if (!std::all_of(in.begin(), in.end(), [&](const auto& p) { return ready[p.second]; }))
        continue;
      ran[s] = progress = true;
      for (const auto& [_, t] : g.steps[s].outputs)
        ready[t] = true;
    }
  }
  return std::all_of(ran.begin(), ran.end(), [](bool b) { return b; });
}

} // namespace

size_t ensemble_graph::find(const std::string& name) const noexcept {
  auto i = std::find(tensors.begin(), tensors.end(), name);
  return static_cast<size_t>(i - tensors.begin());
}

result<ensemble_graph> ensemble_graph::build(const inference::ModelConfig& config) {
  const auto prefix = "ensemble " + in_quotes(config.name()) + ": ";
  ensemble_graph g;
  tensor_names names{g};
  for (const auto& in : config.input()) {
    auto t = names.id(in.name());
    g.producer[t] = -1;
    g.inputs.push_back(t);
  }
  const auto& steps = config.ensemble_scheduling().step();
  for (int i = 0; i < steps.size(); ++i) {
    const auto& step = steps[i];
    ensemble_step s;
    s.model_name = step.model_name();
    // A step that names no version (0, proto3's default) runs the latest,
    // as -1 asks.
    s.model_version = step.model_version() > 0 ? step.model_version() : -1;
    if (step.input_map().empty())
      return invalid_argument("must specify 'input_map' in step " + std::to_string(i)
                              + " of ensemble " + in_quotes(config.name()));
    if (step.output_map().empty())
      return invalid_argument("must specify 'output_map' in step " + std::to_string(i)
                              + " of ensemble " + in_quotes(config.name()));
    for (const auto& [model_input, tensor_name] : step.input_map())
      s.inputs.emplace_back(model_input, names.id(tensor_name));
    for (const auto& [model_output, tensor_name] : step.output_map()) {
      auto t = names.id(tensor_name);
      if (g.producer[t] == -1)
        return invalid_argument(prefix + "ensemble tensor " + in_quotes(tensor_name)
                                + " is an input of the ensemble and cannot be written by step "
                                + std::to_string(i) + " (model " + in_quotes(s.model_name) + ")");
      if (g.producer[t] == i)
        return invalid_argument("in ensemble " + config.name() + ", multiple outputs in model "
                                + s.model_name + " are mapped to the same ensemble tensor "
                                + tensor_name);
      if (g.producer[t] >= 0)
        return invalid_argument("ensemble tensor " + in_quotes(tensor_name)
                                + " can appear in an output map only once for ensemble "
                                + in_quotes(config.name()) + " step " + std::to_string(i));
      g.producer[t] = i;
      s.outputs.emplace_back(model_output, t);
    }
    // The protobuf maps have no order: keep the steps' bindings sorted, so
    // requests and messages come out the same every time.
    std::sort(s.inputs.begin(), s.inputs.end());
    std::sort(s.outputs.begin(), s.outputs.end());
    g.steps.push_back(std::move(s));
  }
  for (size_t s = 0; s < g.steps.size(); ++s)
    for (const auto& [model_input, t] : g.steps[s].inputs) {
      if (g.producer[t] == -2)
        return invalid_argument(prefix + "step " + std::to_string(s) + " (model "
                                + in_quotes(g.steps[s].model_name) + ") reads ensemble tensor "
                                + in_quotes(g.tensors[t])
                                + ", which is neither an input of the ensemble nor written "
                                  "by any step");
      auto& readers = g.consumers[t];
      if (readers.empty() || readers.back() != s)
        readers.push_back(s);
    }
  for (const auto& out : config.output()) {
    auto t = names.id(out.name());
    if (g.producer[t] == -1)
      return invalid_argument(prefix + "ensemble output " + in_quotes(out.name())
                              + " is also an input of the ensemble");
    if (g.producer[t] < 0)
      return invalid_argument("output " + in_quotes(out.name()) + " for ensemble "
                              + in_quotes(config.name()) + " is not written");
    g.outputs.push_back(t);
  }
  for (size_t i = 0; i < g.inputs.size(); ++i)
    if (g.consumers[g.inputs[i]].empty())
      return invalid_argument("ensemble input " + in_quotes(g.tensors[g.inputs[i]])
                              + " for ensemble " + in_quotes(config.name()) + " is not used");
  std::vector<bool> ran;
  if (!runs_through(g, ran)) {
    auto stuck = static_cast<size_t>(std::find(ran.begin(), ran.end(), false) - ran.begin());
    return invalid_argument(prefix + "step " + std::to_string(stuck) + " (model "
                            + in_quotes(g.steps[stuck].model_name)
                            + ") can never run: the data flow has a cycle");
  }
  return g;
}

namespace {

template <class List>
const typename List::value_type* lookup(const List& list, const std::string& name) {
  for (const auto& t : list)
    if (t.name() == name)
      return &t;
  return nullptr;
}

} // namespace

status check_steps(const ensemble_graph& g, const inference::ModelConfig& config,
                   const model_gateway& models) {
  const auto& ensemble = config.name();
  std::vector<std::shared_ptr<const inference::ModelConfig>> configs;
  std::string missing;
  for (const auto& step : g.steps) {
    auto composing = models.config_of(step.model_name, step.model_version);
    if (composing) {
      configs.push_back(*composing);
      continue;
    }
    if ((", " + missing + ", ").find(", " + step.model_name + ", ") == std::string::npos)
      missing += (missing.empty() ? "" : ", ") + step.model_name;
    configs.push_back(nullptr);
  }
  if (!missing.empty())
    return invalid_argument("ensemble " + ensemble
                            + " contains models that are not available or ambiguous: " + missing);
  // The data type of each tensor and the model it was inferred from: the
  // ensemble's inputs, then what each writing step declares.
  std::vector<inference::DataType> types(g.tensors.size(), inference::TYPE_INVALID);
  std::vector<std::string> inferred_from(g.tensors.size(), ensemble);
  for (size_t i = 0; i < g.inputs.size(); ++i)
    types[g.inputs[i]] = config.input(static_cast<int>(i)).data_type();
  for (size_t s = 0; s < g.steps.size(); ++s) {
    const auto& step = g.steps[s];
    const auto& composing = *configs[s];
    if (config.max_batch_size() > 0 && composing.max_batch_size() < config.max_batch_size())
      return invalid_argument("ensemble " + ensemble + " allows maximum batch size "
                              + std::to_string(config.max_batch_size())
                              + ", but it contains model " + step.model_name
                              + " which only allows maximum batch size to be "
                              + std::to_string(composing.max_batch_size()));
    for (const auto& [name, t] : step.outputs) {
      const auto* d = lookup(composing.output(), name);
      if (d == nullptr)
        return invalid_argument("in ensemble " + ensemble + ", ensemble tensor " + g.tensors[t]
                                + " is mapped from non-existing output " + name + " in model "
                                + step.model_name);
      types[t] = d->data_type();
      inferred_from[t] = step.model_name;
    }
  }
  auto inconsistent = [&](size_t t, inference::DataType want, const std::string& model) {
    return invalid_argument("in ensemble " + ensemble + ", ensemble tensor " + g.tensors[t]
                            + ": inconsistent data type: " + inference::DataType_Name(types[t])
                            + " is inferred from model " + inferred_from[t] + " while "
                            + inference::DataType_Name(want) + " is inferred from model "
                            + model);
  };
  for (size_t s = 0; s < g.steps.size(); ++s) {
    const auto& step = g.steps[s];
    const auto& composing = *configs[s];
    for (const auto& [name, t] : step.inputs) {
      const auto* d = lookup(composing.input(), name);
      if (d == nullptr)
        return invalid_argument("in ensemble " + ensemble + ", ensemble tensor " + g.tensors[t]
                                + " is mapping to non-existing input " + name + " in model "
                                + step.model_name);
      if (d->data_type() != types[t])
        return inconsistent(t, d->data_type(), step.model_name);
    }
    for (const auto& in : composing.input()) {
      bool mapped = std::any_of(step.inputs.begin(), step.inputs.end(),
                                [&in](const auto& p) { return p.first == in.name(); });
      if (!mapped && !in.optional())
        return invalid_argument("in ensemble " + ensemble + ", input " + in.name()
                                + " in model " + step.model_name
                                + " is not mapped to any ensemble tensors");
    }
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const auto& out = config.output(static_cast<int>(i));
    if (out.data_type() != types[g.outputs[i]])
      return inconsistent(g.outputs[i], out.data_type(), ensemble);
  }
  return status::ok();
}

} // namespace conch::runtime::backends::ensemble
