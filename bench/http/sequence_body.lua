-- wrk script: POSTs a JSON body in which each request is a sequence of its
-- own, so a sequence-batched model can be driven from any number of
-- connections (requests of one sequence on two connections could arrive
-- out of order).
--   CONCH_BENCH_BODY  the file holding the JSON body, with %d where the
--                     sequence id goes
-- Each thread numbers its sequences from an offset of its own.
local file = assert(io.open(assert(os.getenv("CONCH_BENCH_BODY")), "rb"))
local template = file:read("*a")
file:close()

local threads = 0
function setup(thread)
  threads = threads + 1
  thread:set("first_id", threads * 1000000000)
end

local sent = 0
local headers = { ["Content-Type"] = "application/json" }
function request()
  sent = sent + 1
  return wrk.format("POST", nil, headers, string.format(template, first_id + sent))
end
