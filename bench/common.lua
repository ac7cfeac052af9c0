-- bench/common.lua: what every wrk script of bench/run shares.
--
-- Loaded with require("common") (bench/run puts bench/ on LUA_PATH).
-- Environment, set by bench/run:
--   XB_BENCH_AUTH  base64("clientId:clientSecret") of the bench platform;
--                  unset for the floor, which takes no credentials
--   XB_BENCH_MAX   stop each wrk thread after this many responses (the
--                  counted warm-up runs); unset for measured runs
--   XB_BENCH_RUN   a string unique to this run (Idempotency-Keys)

local M = {}

M.auth = os.getenv("XB_BENCH_AUTH")
M.max = tonumber(os.getenv("XB_BENCH_MAX") or "")
M.run = os.getenv("XB_BENCH_RUN") or tostring(os.time())

-- headers: the request headers of every script (credentials when given).
function M.headers(extra)
   local h = { ["Accept"] = "application/json" }
   if M.auth ~= nil and M.auth ~= "" then
      h["Authorization"] = "Basic " .. M.auth
   end
   for k, v in pairs(extra or {}) do h[k] = v end
   return h
end

-- lines FILE: the non-empty lines of FILE, each split on blanks.
function M.lines(path)
   local f = assert(io.open(path, "r"), "cannot open " .. tostring(path))
   local out = {}
   for line in f:lines() do
      local fields = {}
      for w in line:gmatch("%S+") do fields[#fields + 1] = w end
      if #fields > 0 and fields[1]:sub(1, 1) ~= "#" then out[#out + 1] = fields end
   end
   f:close()
   assert(#out > 0, "no lines in " .. path)
   return out
end

-- setup (main state): numbers the threads; each sees its number as `tid`.
local nthreads = 0
function M.setup(thread)
   nthreads = nthreads + 1
   thread:set("tid", nthreads)
end

-- seed (thread state): a random sequence of its own per thread.
function M.seed()
   math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
end

-- counted: call from response(); stops the thread after XB_BENCH_MAX
-- responses (only the warm-up runs set it).
local seen = 0
function M.counted()
   seen = seen + 1
   if M.max ~= nil and seen >= M.max then wrk.thread:stop() end
end

-- accounts: init() of the scripts that pay: the thread's own random
-- sequence and the fixture's accounts (XB_BENCH_ACCOUNTS).
function M.accounts()
   M.seed()
   return M.lines(os.getenv("XB_BENCH_ACCOUNTS"))
end

-- payout ACCOUNT KEY: the request of POST /transfer-out paying 1.00 USD
-- from a fixture line's customer account (ACCOUNT[2]) to its own bank
-- account (ACCOUNT[3]) under Idempotency-Key KEY.
function M.payout(a, key)
   local body = string.format('{"source":{"accountId":"%s"},"destination":{"accountId":"%s"},'
      .. '"amount":{"currencyCode":"USD","amountMinor":"100"}}', a[2], a[3])
   local h = M.headers({ ["Content-Type"] = "application/json", ["Idempotency-Key"] = key })
   return wrk.format("POST", "/transfer-out", h, body)
end

-- counting_response: the response() of a script that reads no answer:
-- only the counted warm-up runs pay for one (nil otherwise).
function M.counting_response()
   if M.max == nil then return nil end
   return function(status, headers, body) M.counted() end
end

-- done: one line bench/run parses, latencies in microseconds.  wrk counts
-- any status >= 400 in errors.status (the API never answers 1xx or 3xx).
-- extra: more integer fields for the line (mixed.lua's reads and writes).
function M.done(summary, latency, requests, extra)
   local e = summary.errors
   local more = ""
   for k, v in pairs(extra or {}) do more = more .. string.format(',"%s":%d', k, v) end
   io.write(string.format(
      'XB_RESULT {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,' ..
      '"max_us":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d%s}\n',
      summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
      latency.max, e.connect, e.read, e.write, e.timeout, e.status, more))
end

return M
