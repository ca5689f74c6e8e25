-- wrk script: asks for the paths listed in $WRK_PATHS (one per line) in turn, each thread from its
-- own place in the list, so that a run's requests spread evenly over them (script/bench-depth).
local paths = {}
local step = 0
local next_id = 0

function setup(thread)
  thread:set("id", next_id)
  next_id = next_id + 1
end

function init(args)
  for line in io.lines(os.getenv("WRK_PATHS")) do
    if line ~= "" then table.insert(paths, line) end
  end
  step = (id or 0) * 7
end

function request()
  step = step + 1
  return wrk.format("GET", paths[(step % #paths) + 1])
end
