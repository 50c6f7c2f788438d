#include "conch/runtime/statistics/statistics_json.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace conch::runtime::statistics {

namespace {

using writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_duration(writer& w, const char* key, const duration_stat& d) {
  w.Key(key);
  w.StartObject();
  w.Key("count");
  w.Uint64(d.count);
  w.Key("ns");
  w.Uint64(d.ns);
  w.EndObject();
}

void write_inference_stats(writer& w, const statistics_snapshot& s) {
  w.Key("inference_stats");
  w.StartObject();
  write_duration(w, "success", s.success);
  write_duration(w, "fail", s.fail);
  write_duration(w, "queue", s.queue);
  write_duration(w, "compute_input", s.compute_input);
  write_duration(w, "compute_infer", s.compute_infer);
  write_duration(w, "compute_output", s.compute_output);
  write_duration(w, "cache_hit", s.cache_hit);
  write_duration(w, "cache_miss", s.cache_miss);
  w.EndObject();
}

void write_response_stats(writer& w, const statistics_snapshot& s) {
  w.Key("response_stats");
  w.StartObject();
  for (const auto& [index, r] : s.response_stats) {
    auto key = std::to_string(index);
    w.Key(key.c_str(), static_cast<rapidjson::SizeType>(key.size()), true);
    w.StartObject();
    write_duration(w, "compute_infer", r.compute_infer);
    write_duration(w, "compute_output", r.compute_output);
    write_duration(w, "success", r.success);
    write_duration(w, "fail", r.fail);
    write_duration(w, "empty_response", r.empty_response);
    write_duration(w, "cancel", r.cancel);
    w.EndObject();
  }
  w.EndObject();
}

void write_batch_stats(writer& w, const statistics_snapshot& s) {
  w.Key("batch_stats");
  w.StartArray();
  for (const auto& b : s.batch_stats) {
    w.StartObject();
    w.Key("batch_size");
    w.Uint64(b.batch_size);
    write_duration(w, "compute_input", b.compute_input);
    write_duration(w, "compute_infer", b.compute_infer);
    write_duration(w, "compute_output", b.compute_output);
    w.EndObject();
  }
  w.EndArray();
}

void write_memory_usage(writer& w, const statistics_snapshot& s) {
  w.Key("memory_usage");
  w.StartArray();
  for (const auto& m : s.memory_usage) {
    w.StartObject();
    w.Key("type");
    w.String(m.type);
    w.Key("id");
    w.Uint64(m.id);
    w.Key("byte_size");
    w.Uint64(m.byte_size);
    w.EndObject();
  }
  w.EndArray();
}

void write_model(writer& w, const statistics_snapshot& s) {
  w.StartObject();
  w.Key("name");
  w.String(s.name);
  w.Key("version");
  w.String(std::to_string(s.version));
  w.Key("last_inference");
  w.Uint64(s.last_inference);
  w.Key("inference_count");
  w.Uint64(s.inference_count);
  w.Key("execution_count");
  w.Uint64(s.execution_count);
  write_inference_stats(w, s);
  write_response_stats(w, s);
  write_batch_stats(w, s);
  write_memory_usage(w, s);
  w.EndObject();
}

} // namespace

std::string statistics_json(const std::vector<statistics_snapshot>& models) {
  rapidjson::StringBuffer buffer;
  writer w{buffer};
  w.StartObject();
  w.Key("model_stats");
  w.StartArray();
  for (const auto& s : models)
    write_model(w, s);
  w.EndArray();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

} // namespace conch::runtime::statistics
