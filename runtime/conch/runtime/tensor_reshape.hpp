#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "conch/runtime/status.hpp"
#include "conch/runtime/tensor.hpp"

namespace conch::runtime {

/// The `reshape` of a model's inputs and outputs (model configuration):
/// requests arrive, and responses leave, in the shape of `dims`; the backend
/// sees, and produces, the shape of `reshape.shape`. Built once when the model
/// loads and shared, read-only, by every request of the model version.
///
/// Both ways keep the batch dimension of a batching model and carry the sizes
/// of the variable-size dimensions (-1) over in order: the configuration was
/// checked to have as many in `dims` as in `reshape.shape`, between runs of
/// fixed dimensions holding the same elements
/// (model_config/validate_tensors.cpp).
class tensor_reshapes {
 public:
  struct rule {
    /// The configured dims: the shape on the wire, without a batch dimension.
    shape_type dims;
    /// reshape.shape: the shape the backend sees or produces.
    shape_type reshape;
  };

  explicit tensor_reshapes(bool batched) noexcept : batched_(batched) {}

  void add_input(std::string name, rule r) { inputs_[std::move(name)] = std::move(r); }
  void add_output(std::string name, rule r) { outputs_[std::move(name)] = std::move(r); }
  bool has_outputs() const noexcept { return !outputs_.empty(); }

  /// Gives each input with a reshape the backend's shape. The inputs were
  /// validated against `dims` first.
  void to_backend(std::vector<tensor>& inputs) const;

  /// Gives each input with a reshape its client's shape again: undoes
  /// to_backend.
  void inputs_to_client(std::vector<tensor>& inputs) const;

  /// Gives each output with a reshape the client's shape (`dims`). An output
  /// already in that shape stays as it is; one in neither shape is a fault
  /// of the model, answered INTERNAL with both shapes named.
  status to_client(std::vector<tensor>& outputs, std::string_view model) const;

  /// `shape` from `from` to `to` (dims and reshape, either way): the batch
  /// dimension (the first, when `batched`) is kept, and each -1 of `to`
  /// takes the size of the next -1 of `from`. Exposed for tests.
  static shape_type convert(const shape_type& shape, bool batched, const shape_type& from,
                            const shape_type& to);

  /// Whether `shape` fits `dims` (-1 matching any size) after a batch
  /// dimension when `batched`.
  static bool fits(const shape_type& shape, bool batched, const shape_type& dims) noexcept;

 private:
  bool batched_;
  std::map<std::string, rule, std::less<>> inputs_;
  std::map<std::string, rule, std::less<>> outputs_;
};

} // namespace conch::runtime
