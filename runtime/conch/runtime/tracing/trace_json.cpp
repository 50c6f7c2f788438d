#include "conch/runtime/tracing/trace_json.hpp"

#include <cmath>
#include <cstring>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "conch/runtime/bytes_elements.hpp"

namespace conch::runtime::tracing {

namespace {

using json_writer = rapidjson::Writer<rapidjson::StringBuffer>;

float half_to_float(uint16_t h) {
  int exponent = (h >> 10) & 0x1f;
  int mantissa = h & 0x3ff;
  float v = exponent == 0    ? std::ldexp(static_cast<float>(mantissa), -24)
            : exponent == 31 ? (mantissa != 0 ? NAN : INFINITY)
                             : std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
  return (h & 0x8000) != 0 ? -v : v;
}

float bf16_to_float(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

template <class T>
T element(const std::byte* data, size_t i) {
  T v;
  std::memcpy(&v, data + i * sizeof(T), sizeof(T));
  return v;
}

// Appends element i of a fixed-size type.
void append_element(std::string& out, data_type type, const std::byte* p, size_t i) {
  switch (type) {
    case data_type::bool_: out += element<uint8_t>(p, i) != 0 ? "1" : "0"; return;
    case data_type::uint8: out += std::to_string(element<uint8_t>(p, i)); return;
    case data_type::uint16: out += std::to_string(element<uint16_t>(p, i)); return;
    case data_type::uint32: out += std::to_string(element<uint32_t>(p, i)); return;
    case data_type::uint64: out += std::to_string(element<uint64_t>(p, i)); return;
    case data_type::int8: out += std::to_string(element<int8_t>(p, i)); return;
    case data_type::int16: out += std::to_string(element<int16_t>(p, i)); return;
    case data_type::int32: out += std::to_string(element<int32_t>(p, i)); return;
    case data_type::int64: out += std::to_string(element<int64_t>(p, i)); return;
    default: break;
  }
  double v = 0;
  if (type == data_type::fp16)
    v = half_to_float(element<uint16_t>(p, i));
  else if (type == data_type::bf16)
    v = bf16_to_float(element<uint16_t>(p, i));
  else if (type == data_type::fp32)
    v = element<float>(p, i);
  else if (type == data_type::fp64)
    v = element<double>(p, i);
  char buf[32];
  int n = std::snprintf(buf, sizeof buf, "%g", v);
  out.append(buf, static_cast<size_t>(n));
}

void write_stamp(json_writer& w, uint64_t id, const trace_stamp& s) {
  w.StartObject();
  w.Key("id");
  w.Uint64(id);
  w.Key("timestamps");
  w.StartArray();
  w.StartObject();
  w.Key("name");
  w.String(s.name);
  w.Key("ns");
  w.Uint64(s.ns);
  w.EndObject();
  w.EndArray();
  w.EndObject();
}

void write_header(json_writer& w, const trace_record& r) {
  w.StartObject();
  w.Key("id");
  w.Uint64(r.id);
  w.Key("model_name");
  w.String(r.model_name);
  w.Key("model_version");
  w.Int64(r.model_version);
  if (!r.request_id.empty()) {
    w.Key("request_id");
    w.String(r.request_id);
  }
  if (r.parent_id != 0) {
    w.Key("parent_id");
    w.Uint64(r.parent_id);
  }
  w.EndObject();
}

void write_tensor(json_writer& w, uint64_t id, const trace_tensor& t) {
  w.StartObject();
  w.Key("id");
  w.Uint64(id);
  w.Key("activity");
  w.String(t.activity);
  w.Key("tensor");
  w.StartObject();
  w.Key("name");
  w.String(t.value.name);
  w.Key("data");
  w.String(tensor_data_text(t.value));
  w.Key("shape");
  std::string shape;
  for (auto d : t.value.shape)
    shape += (shape.empty() ? "" : ",") + std::to_string(d);
  w.String(shape);
  w.Key("dtype");
  auto dtype = data_type_name(t.value.type);
  w.String(dtype.data(), static_cast<rapidjson::SizeType>(dtype.size()));
  w.EndObject();
  w.EndObject();
}

void write_record(json_writer& w, const trace_record& r) {
  bool header = false;
  for (const auto& s : r.stamps) {
    if (!header && std::strcmp(s.name, "REQUEST_START") == 0) {
      write_header(w, r);
      header = true;
    }
    write_stamp(w, r.id, s);
  }
  if (!header)
    write_header(w, r);
  for (const auto& t : r.tensors)
    write_tensor(w, r.id, t);
  for (const auto& child : r.children)
    write_record(w, child);
}

} // namespace

std::string tensor_data_text(const tensor& t) {
  if (!t.data.host_accessible() || t.data.data() == nullptr)
    return {};
  std::string out;
  if (t.type == data_type::bytes) {
    auto elements = split_bytes_elements(t.data.data(), t.data.size());
    if (!elements)
      return {};
    for (const auto& e : *elements) {
      if (!out.empty())
        out += ',';
      out += '"';
      out.append(e.data(), e.size());
      out += '"';
    }
    return out;
  }
  auto size = element_size(t.type);
  if (size == 0)
    return {};
  size_t n = t.data.size() / size;
  for (size_t i = 0; i < n; ++i) {
    if (i != 0)
      out += ',';
    append_element(out, t.type, t.data.data(), i);
  }
  return out;
}

std::string trace_json(const trace_record& record) {
  rapidjson::StringBuffer out;
  json_writer w{out};
  // The writer takes one root value at a time: write the objects into an
  // array and strip its brackets.
  w.StartArray();
  write_record(w, record);
  w.EndArray();
  std::string text{out.GetString(), out.GetSize()};
  return text.substr(1, text.size() - 2);
}

} // namespace conch::runtime::tracing
