-- bench/get-config.lua: wrk script, authenticated GET /config.
--
-- bench/run sets XB_BENCH_AUTH to base64("clientId:clientSecret") of the dev
-- stack's sandbox platform and passes the URL .../config.  Every thread
-- loads this file, so each sends the same Authorization header.

local auth = os.getenv("XB_BENCH_AUTH")
if auth == nil or auth == "" then
   error("XB_BENCH_AUTH is not set: run bench/run")
end

wrk.method = "GET"
wrk.headers["Authorization"] = "Basic " .. auth
wrk.headers["Accept"] = "application/json"

-- A short summary after wrk's own report, in milliseconds.
function done(summary, latency, requests)
   local secs = summary.duration / 1e6
   local e = summary.errors
   io.write("--- summary\n")
   io.write(string.format("requests       %d in %.2f s\n", summary.requests, secs))
   io.write(string.format("requests/s     %.1f\n", summary.requests / secs))
   for _, p in ipairs({ 50, 90, 99, 99.9 }) do
      io.write(string.format("latency p%-5s %.2f ms\n", tostring(p), latency:percentile(p) / 1000))
   end
   io.write(string.format("latency max    %.2f ms\n", latency.max / 1000))
   io.write(string.format("errors         connect %d, read %d, write %d, timeout %d, non-2xx %d\n",
      e.connect, e.read, e.write, e.timeout, e.status))
end
