#include "conch/python/dlpack.hpp"

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "conch/python/gil.hpp"
#include "conch/python/status.hpp"

namespace conch::python {

namespace py = pybind11;
using runtime::data_type;
using runtime::errc;

namespace {

// -- the DLPack ABI ------------------------------------------------------------

struct dl_device {
  int32_t device_type;
  int32_t device_id;
};

enum dl_type_code : uint8_t { dl_int = 0, dl_uint = 1, dl_float = 2, dl_bfloat = 4, dl_bool = 6 };

struct dl_data_type {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct dl_tensor {
  void* data;
  dl_device device;
  int32_t ndim;
  dl_data_type dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
};

struct dl_managed_tensor {
  dl_tensor tensor;
  void* manager_ctx;
  void (*deleter)(dl_managed_tensor*);
};

struct dl_version {
  uint32_t major;
  uint32_t minor;
};

struct dl_managed_tensor_versioned {
  dl_version version;
  void* manager_ctx;
  void (*deleter)(dl_managed_tensor_versioned*);
  uint64_t flags;
  dl_tensor tensor;
};

constexpr const char* legacy_name = "dltensor";
constexpr const char* versioned_name = "dltensor_versioned";

// -- data types ------------------------------------------------------------------

bool to_dl(data_type t, dl_data_type& out) {
  auto bits = static_cast<uint8_t>(runtime::element_size(t) * 8);
  switch (t) {
    case data_type::bool_: out = {dl_bool, 8, 1}; return true;
    case data_type::int8: case data_type::int16: case data_type::int32: case data_type::int64:
      out = {dl_int, bits, 1}; return true;
    case data_type::uint8: case data_type::uint16: case data_type::uint32: case data_type::uint64:
      out = {dl_uint, bits, 1}; return true;
    case data_type::fp16: case data_type::fp32: case data_type::fp64:
      out = {dl_float, bits, 1}; return true;
    case data_type::bf16: out = {dl_bfloat, 16, 1}; return true;
    default: return false;
  }
}

data_type from_dl(dl_data_type t) {
  if (t.lanes != 1)
    return data_type::invalid;
  for (auto c : {data_type::bool_, data_type::uint8, data_type::uint16, data_type::uint32,
                 data_type::uint64, data_type::int8, data_type::int16, data_type::int32,
                 data_type::int64, data_type::fp16, data_type::fp32, data_type::fp64,
                 data_type::bf16}) {
    dl_data_type d{};
    if (to_dl(c, d) && d.code == t.code && d.bits == t.bits)
      return c;
  }
  return data_type::invalid;
}

// -- import ----------------------------------------------------------------------

bool c_contiguous(const dl_tensor& t) {
  if (t.strides == nullptr)
    return true;
  int64_t expected = 1;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected)
      return false;
    expected *= t.shape[i];
  }
  return true;
}

runtime::memory_type memory_of(const dl_device& d) {
  switch (d.device_type) {
    case dl_cpu: return runtime::memory_type::cpu;
    case dl_cuda_host: return runtime::memory_type::cpu_pinned;
    case dl_cuda: case dl_cuda_managed: return runtime::memory_type::gpu;
    default:
      raise(errc::unsupported, "DLPack device type " + std::to_string(d.device_type) +
                                 " is not supported");
  }
}

template <class Managed>
void release_managed(void* p) {
  auto* m = static_cast<Managed*>(p);
  if (m->deleter != nullptr)
    m->deleter(m);
}

template <class Managed>
imported_tensor import_managed(PyObject* capsule, const char* name, const char* used_name) {
  auto* m = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
  if (m == nullptr)
    throw py::error_already_set();
  const dl_tensor& t = m->tensor;
  imported_tensor out;
  out.type = from_dl(t.dtype);
  if (out.type == data_type::invalid)
    raise(errc::invalid_argument, "DLPack data type (code " + std::to_string(t.dtype.code) +
                                    ", bits " + std::to_string(t.dtype.bits) + ", lanes " +
                                    std::to_string(t.dtype.lanes) + ") is not supported");
  if (!c_contiguous(t))
    raise(errc::invalid_argument, "Only contiguous memory is supported");
  auto memory = memory_of(t.device);
  out.shape.assign(t.shape, t.shape + t.ndim);
  auto count = runtime::element_count(out.shape);
  if (count < 0)
    raise(errc::invalid_argument, "DLPack tensor has an invalid shape");
  // From here on the capsule is ours: rename it so its destructor leaves the
  // tensor alone, and let the buffer's owner call the producer's deleter.
  PyCapsule_SetName(capsule, used_name);
  std::shared_ptr<const void> owner(m, [](const void* p) {
    call_with_gil(release_managed<Managed>, const_cast<void*>(p));
  });
  auto* data = static_cast<std::byte*>(t.data) + t.byte_offset;
  out.data = runtime::buffer{std::move(owner), data,
                             static_cast<size_t>(count) * runtime::element_size(out.type), memory,
                             t.device.device_id};
  return out;
}

// -- export ----------------------------------------------------------------------

// What a consumer's deleter frees: the tensor description, the shape it
// points into and the reference that keeps the bytes alive.
template <class Managed>
struct export_context {
  Managed managed{};
  runtime::shape_type shape;
  py_ref keep_alive;
};

template <class Managed>
void delete_export(Managed* m) {
  delete static_cast<export_context<Managed>*>(m->manager_ctx);
}

template <class Managed>
void destroy_unconsumed(PyObject* capsule) {
  // Only a capsule that no consumer took still owns its tensor.
  const char* name = std::is_same_v<Managed, dl_managed_tensor> ? legacy_name : versioned_name;
  if (!PyCapsule_IsValid(capsule, name))
    return;
  auto* m = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
  if (m != nullptr && m->deleter != nullptr)
    m->deleter(m);
}

template <class Managed>
py::capsule make_capsule(export_request& r, const dl_data_type& dtype, const char* name) {
  auto ctx = std::make_unique<export_context<Managed>>();
  ctx->shape = std::move(r.shape);
  ctx->keep_alive = py_ref::borrow(r.keep_alive.ptr());
  auto& t = ctx->managed.tensor;
  t.data = r.data;
  // Pinned host memory is exported as plain CPU memory, as __dlpack_device__
  // reports it: every CPU consumer can read it.
  bool gpu = r.memory == runtime::memory_type::gpu;
  t.device = {gpu ? dl_cuda : dl_cpu, static_cast<int32_t>(gpu ? r.device_id : 0)};
  t.ndim = static_cast<int32_t>(ctx->shape.size());
  t.dtype = dtype;
  t.shape = ctx->shape.data();
  t.strides = nullptr;
  t.byte_offset = 0;
  ctx->managed.manager_ctx = ctx.get();
  ctx->managed.deleter = delete_export<Managed>;
  if constexpr (std::is_same_v<Managed, dl_managed_tensor_versioned>)
    ctx->managed.version = {1, 0};
  PyObject* cap = PyCapsule_New(&ctx->managed, name, destroy_unconsumed<Managed>);
  if (cap == nullptr)
    throw py::error_already_set();
  ctx.release();
  return py::reinterpret_steal<py::capsule>(cap);
}

} // namespace

imported_tensor import_dlpack(py::handle capsule) {
  PyObject* cap = capsule.ptr();
  if (PyCapsule_IsValid(cap, legacy_name))
    return import_managed<dl_managed_tensor>(cap, legacy_name, "used_dltensor");
  if (PyCapsule_IsValid(cap, versioned_name))
    return import_managed<dl_managed_tensor_versioned>(cap, versioned_name,
                                                       "used_dltensor_versioned");
  raise(errc::invalid_argument,
        "Object is not an unconsumed DLPack capsule (\"dltensor\" or \"dltensor_versioned\")");
}

py::capsule export_dlpack(export_request r) {
  dl_data_type dtype{};
  if (!to_dl(r.type, dtype))
    raise(errc::invalid_argument,
          "DLPack does not support data type " + std::string(runtime::data_type_name(r.type)) +
            (r.type == data_type::bytes ? "; use to_bytes_array()" : ""));
  if (r.versioned)
    return make_capsule<dl_managed_tensor_versioned>(r, dtype, versioned_name);
  return make_capsule<dl_managed_tensor>(r, dtype, legacy_name);
}

} // namespace conch::python
