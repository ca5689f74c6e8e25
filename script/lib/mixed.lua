-- wrk script for script/soak: mixed RepoScroll routes, and a count of every answer by kind and status.
-- Paths come from the file named by $SOAK_PATHS ("CLASS PATH" per line). Each thread walks a fixed
-- schedule of classes (the weights below) and picks a random path of that class.
-- Answers are sorted by what they are (wrk does not tell which request an answer belongs to), and
-- degraded ones are counted: error or rate-limit rows in pages and fragments (a data-retry-url with a
-- path; the page's client-side <template> has an empty one), unavailable star histories, and
-- placeholder avatars. done() prints "SOAK key value" lines for the shell to read.

local weights = { page = 2, fragment = 6, stars = 5, avatar = 4, static = 2, healthz = 1 }
local order = { "page", "fragment", "stars", "avatar", "static", "healthz" }

local threads = {}
local next_id = 1

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

local paths = {}
local schedule = {}
local step = 0
counts = {}

function init(args)
  local file = os.getenv("SOAK_PATHS")
  for line in io.lines(file) do
    local class, path = line:match("^(%S+)%s+(%S+)$")
    if class then
      paths[class] = paths[class] or {}
      table.insert(paths[class], path)
    end
  end
  -- Interleaved so every stretch of the schedule carries every class.
  local left = {}
  for _, class in ipairs(order) do left[class] = paths[class] and weights[class] or 0 end
  repeat
    local added = false
    for _, class in ipairs(order) do
      if left[class] > 0 then
        table.insert(schedule, class)
        left[class] = left[class] - 1
        added = true
      end
    end
  until not added
  math.randomseed(os.time() + 7919 * (id or 0))
  step = (id or 0) * 3
end

function request()
  step = step + 1
  local list = paths[schedule[(step % #schedule) + 1]]
  return wrk.format("GET", list[math.random(#list)])
end

local function count(key)
  counts[key] = (counts[key] or 0) + 1
end

local function header(headers, name)
  for key, value in pairs(headers) do
    if key:lower() == name then return value end
  end
  return nil
end

function response(status, headers, body)
  local kind
  local degraded = false
  local content_type = header(headers, "content-type") or ""
  if header(headers, "x-avatar") == "placeholder" then
    kind, degraded = "avatar", true
  elseif content_type:find("image/png", 1, true) then
    kind = "avatar"
  elseif body:sub(1, 9) == "<!DOCTYPE" or body:sub(1, 9) == "<!doctype" then
    kind = "page"
  elseif body:find('<div class="history', 1, true) == 1 then
    kind = "stars"
    degraded = body:find("history-unavailable", 1, true) ~= nil
  elseif body:find("<article", 1, true) == 1 or body:find('<div class="tail"', 1, true) == 1 then
    kind = "fragment"
  elseif body == "ok\n" then
    kind = "healthz"
  elseif content_type:find("css", 1, true) or content_type:find("javascript", 1, true)
    or content_type:find("svg", 1, true) then
    kind = "static"
  else
    kind = "other"
  end
  if kind == "page" or kind == "fragment" then
    degraded = body:find('data-retry-url="/', 1, true) ~= nil
  end
  count(kind .. "." .. status)
  if degraded then count(kind .. ".degraded") end
end

function done(summary, latency, requests)
  local total = {}
  for _, thread in ipairs(threads) do
    local c = thread:get("counts")
    for key, value in pairs(c) do total[key] = (total[key] or 0) + value end
  end
  local keys = {}
  for key in pairs(total) do table.insert(keys, key) end
  table.sort(keys)
  for _, key in ipairs(keys) do io.write(string.format("SOAK %s %d\n", key, total[key])) end
  local e = summary.errors
  io.write(string.format("SOAK requests %d\nSOAK errors.connect %d\nSOAK errors.read %d\n", summary.requests,
    e.connect, e.read))
  io.write(string.format("SOAK errors.write %d\nSOAK errors.timeout %d\nSOAK errors.status %d\n", e.write,
    e.timeout, e.status))
  io.write(string.format("SOAK latency.p50_ms %.2f\nSOAK latency.p99_ms %.2f\nSOAK latency.max_ms %.2f\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
