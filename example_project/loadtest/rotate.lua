-- wrk script: every request asks for the next path of the list given after "--"
-- (the index and each page it lists), so each server sees the same mix; done()
-- prints one machine-readable line that helper.py parses.
--
--   wrk -s rotate.lua http://127.0.0.1:PORT -- /sitemap.xml /sitemap-posts-1.xml ...

local paths = {}
local next_index = 0
local thread_count = 0

function setup(thread)
    -- Each thread starts at another place in the list, so the threads' first
    -- requests are not all for the same (large) page at once.
    thread:set("offset", thread_count)
    thread_count = thread_count + 1
end

function init(args)
    for _, path in ipairs(args) do
        paths[#paths + 1] = path
    end
    if #paths == 0 then
        error("rotate.lua: give the paths after --")
    end
    next_index = offset % #paths
end

function request()
    next_index = next_index % #paths + 1
    return wrk.format("GET", paths[next_index])
end

-- No response() callback on purpose: with one, wrk hands every body (MBs
-- here) to Lua as a string, which would cost more CPU than the parsing itself.

function done(summary, latency, requests)
    local e = summary.errors
    io.write(string.format(
        "WRK_RESULT requests=%d duration_us=%d bytes=%d connect=%d read=%d write=%d "
            .. "status=%d timeout=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
        summary.requests, summary.duration, summary.bytes,
        e.connect, e.read, e.write, e.status, e.timeout,
        latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
