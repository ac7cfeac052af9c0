-- bench/mixed.lua: wrk script, readers and writers in the same run: the
-- odd threads' connections GET the list page XB_BENCH_LIST (the URL's
-- path when unset), the even threads' POST /transfer-out as
-- transfer-out.lua makes it (wrk -t 2: half the connections each, neither
-- waiting for the other).  Every answer is counted by its status (200: a
-- read, 201: a payout), and done() adds "reads" and "writes" to the
-- XB_RESULT line, so bench/run reports both rates of one run.

local common = require("common")

local accounts = nil
local n = 0
local list = os.getenv("XB_BENCH_LIST")
reads = 0
writes = 0

wrk.method = "GET"
wrk.headers = common.headers()

local threads = {}

function setup(thread)
   common.setup(thread)
   threads[#threads + 1] = thread
end

function init(args)
   accounts = common.accounts()
   if list == nil or list == "" then list = wrk.path end
end

function request()
   n = n + 1
   if tid % 2 == 1 then
      return wrk.format("GET", list)
   end
   return common.payout(accounts[math.random(#accounts)],
      string.format("bench-mixed-%s-%d-%d", common.run, tid, n))
end

function response(status, headers, body)
   if status == 200 then
      reads = reads + 1
   elseif status == 201 then
      writes = writes + 1
   end
   common.counted()
end

function done(summary, latency, requests)
   local r, w = 0, 0
   for _, t in ipairs(threads) do
      r = r + (tonumber(t:get("reads")) or 0)
      w = w + (tonumber(t:get("writes")) or 0)
   end
   common.done(summary, latency, requests, { reads = r, writes = w })
end
