-- bench/get.lua: wrk script, GET of one path or of paths picked at random.
--
-- The path is the URL's own, unless XB_BENCH_PATHS names a file of paths
-- (one per line: /transactions/Transaction:<id>), one picked at random for
-- each request.  Authenticated when XB_BENCH_AUTH is set (common.lua).

local common = require("common")

wrk.method = "GET"
wrk.headers = common.headers()

local list = os.getenv("XB_BENCH_PATHS")
local paths = nil

setup = common.setup
done = common.done

-- Each path's request is formatted once, in init: request() only picks
-- one, so wrk spends on a random path about what it spends on a fixed one
-- (the floor's), and the ratio measures the service, not the script.
function init(args)
   common.seed()
   if list ~= nil and list ~= "" then
      paths = {}
      for _, f in ipairs(common.lines(list)) do paths[#paths + 1] = wrk.format(nil, f[1]) end
   end
end

if list ~= nil and list ~= "" then
   function request()
      return paths[math.random(#paths)]
   end
end

-- Only the counted warm-up runs pay for a response() hook.
response = common.counting_response()
