#pragma once

#include <string>

#include "conch/runtime/request_trace.hpp"

namespace conch::runtime::tracing {

/// A finished trace and its children as Triton's trace file holds them: a
/// comma-separated run of flat JSON objects, each with the trace's "id":
/// one per timestamp ({"id":..,"timestamps":[{"name":..,"ns":..}]}), the
/// trace's header ({"id","model_name","model_version"[,"request_id"]
/// [,"parent_id"]}) just before its REQUEST_START, and at the TENSORS level
/// one per tensor ({"id","activity","tensor":{"name","data","shape",
/// "dtype"}}). The children's objects follow the parent's. Strings are
/// escaped, where Triton writes them raw.
std::string trace_json(const trace_record& record);

/// A tensor's elements as the TENSORS level writes them: joined by ','
/// (BYTES elements each in quotes, BOOL as 1 and 0, FP16 and BF16 as
/// numbers); empty for a tensor whose bytes the host cannot read.
std::string tensor_data_text(const tensor& t);

} // namespace conch::runtime::tracing
