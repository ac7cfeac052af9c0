-- bench/transfer-out.lua: wrk script, POST /transfer-out.
--
-- XB_BENCH_ACCOUNTS names the fixture bench/run writes: one funded
-- customer a line, "customerId internalAccountId externalAccountId
-- ppvAddress" (USD accounts; the external account completes).  Each request
-- pays 1.00 USD from a customer picked at random to its own bank account,
-- with an Idempotency-Key unique to the run, the thread and the request.

local common = require("common")

local accounts = nil
local n = 0

wrk.method = "POST"
wrk.headers = common.headers({ ["Content-Type"] = "application/json" })

setup = common.setup
done = common.done

function init(args)
   accounts = common.accounts()
end

function request()
   n = n + 1
   return common.payout(accounts[math.random(#accounts)],
      string.format("bench-%s-%d-%d", common.run, tid, n))
end

response = common.counting_response()
