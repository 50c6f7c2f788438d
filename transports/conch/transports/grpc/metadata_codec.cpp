#include "conch/transports/grpc/metadata_codec.hpp"

#include <string>

namespace conch::transports::grpc {

namespace {

using runtime::statistics::duration_stat;

void encode_tensors(const std::vector<runtime::tensor_metadata>& tensors,
                    google::protobuf::RepeatedPtrField<
                      inference::ModelMetadataResponse::TensorMetadata>& out) {
  for (const auto& t : tensors) {
    auto* m = out.Add();
    m->set_name(t.name);
    m->set_datatype(t.datatype);
    for (auto d : t.shape)
      m->add_shape(d);
  }
}

void put(const duration_stat& d, inference::StatisticDuration* out) {
  out->set_count(d.count);
  out->set_ns(d.ns);
}

void encode_inference_stats(const runtime::statistics::statistics_snapshot& s,
                            inference::InferStatistics& out) {
  put(s.success, out.mutable_success());
  put(s.fail, out.mutable_fail());
  put(s.queue, out.mutable_queue());
  put(s.compute_input, out.mutable_compute_input());
  put(s.compute_infer, out.mutable_compute_infer());
  put(s.compute_output, out.mutable_compute_output());
  put(s.cache_hit, out.mutable_cache_hit());
  put(s.cache_miss, out.mutable_cache_miss());
}

} // namespace

void encode_server_metadata(const runtime::server_metadata& info, inference::ServerMetadataResponse& out) {
  out.set_name(info.name);
  out.set_version(info.version);
  for (const auto& e : info.extensions)
    out.add_extensions(e);
}

void encode_model_metadata(const runtime::model_metadata& info, inference::ModelMetadataResponse& out) {
  out.set_name(info.name);
  for (const auto& v : info.versions)
    out.add_versions(v);
  out.set_platform(info.platform);
  encode_tensors(info.inputs, *out.mutable_inputs());
  encode_tensors(info.outputs, *out.mutable_outputs());
}

void encode_model_statistics(const runtime::statistics::statistics_snapshot& s,
                             inference::ModelStatistics& out) {
  out.set_name(s.name);
  out.set_version(std::to_string(s.version));
  out.set_last_inference(s.last_inference);
  out.set_inference_count(s.inference_count);
  out.set_execution_count(s.execution_count);
  encode_inference_stats(s, *out.mutable_inference_stats());
  for (const auto& b : s.batch_stats) {
    auto* o = out.add_batch_stats();
    o->set_batch_size(b.batch_size);
    put(b.compute_input, o->mutable_compute_input());
    put(b.compute_infer, o->mutable_compute_infer());
    put(b.compute_output, o->mutable_compute_output());
  }
  for (const auto& m : s.memory_usage) {
    auto* o = out.add_memory_usage();
    o->set_type(m.type);
    o->set_id(static_cast<int64_t>(m.id));
    o->set_byte_size(m.byte_size);
  }
  for (const auto& [index, r] : s.response_stats) {
    auto& o = (*out.mutable_response_stats())[std::to_string(index)];
    put(r.compute_infer, o.mutable_compute_infer());
    put(r.compute_output, o.mutable_compute_output());
    put(r.success, o.mutable_success());
    put(r.fail, o.mutable_fail());
    put(r.empty_response, o.mutable_empty_response());
    put(r.cancel, o.mutable_cancel());
  }
}

} // namespace conch::transports::grpc
