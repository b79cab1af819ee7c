-- wrk script: every thread walks the same list of request paths (one per line,
-- file named by the first script argument; the second is wrk's thread count),
-- starting at its own offset so that
-- threads do not hit the same file in lockstep. done() prints one machine-readable
-- line with exact latency percentiles (microseconds) for bench/lib/measure.py.

local threads = {}

function setup(thread)
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

local paths = {}
local cursor = 1

function init(args)
  local file = args[1]
  if file == nil then
    error("cycle.lua needs the path list as its first argument (wrk ... -- FILE)")
  end
  for line in io.lines(file) do
    if #line > 0 then paths[#paths + 1] = line end
  end
  if #paths == 0 then error("no paths in " .. file) end
  -- Spread the threads' starting points evenly over the list.
  local count = tonumber(args[2]) or 1
  cursor = (math.floor(#paths * thread_index / math.max(count, 1)) % #paths) + 1
end

function request()
  local path = paths[cursor]
  cursor = cursor + 1
  if cursor > #paths then cursor = 1 end
  return wrk.format("GET", path)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH-RESULT {\"requests\": %d, \"duration_us\": %d, \"bytes\": %d, " ..
    "\"errors_connect\": %d, \"errors_read\": %d, \"errors_write\": %d, " ..
    "\"errors_status\": %d, \"errors_timeout\": %d, " ..
    "\"p50_us\": %d, \"p90_us\": %d, \"p99_us\": %d, \"max_us\": %d, \"mean_us\": %.1f}\n",
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max, latency.mean))
end
