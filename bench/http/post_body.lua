-- wrk script: POSTs one request body read from a file, with its headers.
--   CONCH_BENCH_BODY          the file whose bytes are the request body
--   CONCH_BENCH_CONTENT_TYPE  the Content-Type header
--   CONCH_BENCH_HEADER_LENGTH the Inference-Header-Content-Length header
--                             (binary tensor extension); absent for JSON
local file = assert(io.open(assert(os.getenv("CONCH_BENCH_BODY")), "rb"))
wrk.method = "POST"
wrk.body = file:read("*a")
file:close()
wrk.headers["Content-Type"] = os.getenv("CONCH_BENCH_CONTENT_TYPE") or "application/json"
local header_length = os.getenv("CONCH_BENCH_HEADER_LENGTH")
if header_length and header_length ~= "" then
  wrk.headers["Inference-Header-Content-Length"] = header_length
end
