-- bench/quotes.lua: wrk script, POST /quotes and POST /quotes/{id}/execute.
--
-- Alternates: a connection that finds a quote made by its thread and not
-- executed yet executes it; otherwise it makes one (10.00 USD from a
-- customer picked at random to the EUR PPV address of another, the sending
-- side locked; such a payment settles at once).  So about half the
-- requests are each.  Accounts as in transfer-out.lua (XB_BENCH_ACCOUNTS).

local common = require("common")

local accounts = nil
local ready = {}  -- quote ids made by this thread, not executed yet
local shown = 0

wrk.method = "POST"

setup = common.setup
done = common.done

function init(args)
   accounts = common.accounts()
end

function request()
   local h = common.headers({ ["Content-Type"] = "application/json" })
   local q = table.remove(ready)
   if q ~= nil then
      return wrk.format("POST", "/quotes/" .. q .. "/execute", h, nil)
   end
   local i = math.random(#accounts)
   local j = math.random(#accounts - 1)
   if j >= i then j = j + 1 end
   local body = string.format('{"source":{"accountId":"%s"},"destination":{"destinationType":'
      .. '"PPV_ADDRESS","ppvAddress":"%s","currencyCode":"EUR"},'
      .. '"lockedCurrencySide":"SENDING","lockedCurrencyAmount":"1000"}',
      accounts[i][2], accounts[j][4])
   return wrk.format("POST", "/quotes", h, body)
end

function response(status, headers, body)
   if status == 201 then
      local q = body:match('"quoteId"%s*:%s*"([^"]+)"')
      if q ~= nil then ready[#ready + 1] = q end
   elseif status >= 300 and shown < 3 then
      -- The first few failures, for whoever reads the run's log.
      shown = shown + 1
      io.stderr:write("quotes.lua: " .. status .. " " .. body:sub(1, 300) .. "\n")
   end
   common.counted()
end
