--- perflab.cli: the subcommands of the perflab binary.  main.c hands the
-- arguments here; the return value is the exit status:
--   0 success; 1 a finding at or above --fail-on; 2 bad usage, unknown
--   recipe or format, unreadable or malformed input.
local perflab = require "perflab"
local profile = require "perflab.profile"
local recipes = require "perflab.recipes"
local report_mod = require "perflab.report"
local errors = require "perflab.errors"
local sys = require "perflab.sys"

local M = {}
local fail = errors.fail

local out_formats = { text = true, markdown = true, md = true, json = true, csv = true, html = true }

local usage = {
  run = [[
usage: perflab run RECIPE FILE... [options]
       perflab run all FILE... [options]   every recipe whose needs the inputs meet

Runs a recipe on one or more profiles and prints its report.
  --format text|markdown|json|csv|html   report format (default text); html is
                      one self-contained page with the figures inline
  --output DIR        also write report.txt/.md/.json/.html, every table as CSV and
                      every figure as SVG into DIR (each file written atomically;
                      with 'all', each recipe's files in DIR/RECIPE/)
  --fail-on SEV       exit 1 when a finding has severity SEV or higher
                      (info < opt < warn < error)
  --set KEY=VALUE     set a recipe option (perflab run RECIPE --help lists them)
  --table NAME        with --format csv: print only that table
  --max-rows N        text and markdown: at most N rows of each table (0: all;
                      default all, and 50 with 'all' / perflab report); CSV,
                      JSON and --output have every row
  --full-names        text: print kernel names in full (by default templates
                      and parameter lists are elided and tables fit the
                      terminal, or 120 columns)
  --input-format ID   read the inputs as format ID instead of detecting it
  --lenient           salvage what parses; list what was skipped
  --gpu NAME          GPU model when the input does not name it (same as --set gpu=NAME)
  --baseline FILE...  inputs in the role "baseline" (the normal runs) for
                      comparison recipes (suspicion); files up to the next option
  --target FILE...    inputs in the role "target" (the slow or new runs)
  --jobs N            parse the input files on N threads (default: the number
                      of cores), a big Kineto trace split among them; the
                      reports do not depend on N
  --map FILE          (multi-rank recipes: distributed, stragglers) write the
                      per-rank summary of FILE into --output DIR (CSV tables,
                      manifest.json); no report
  --merge DIR...      the report from folders written by --map, the same as
                      the direct run on their files
]],
  report = [[
usage: perflab report FILE... [options]

The same as perflab run all FILE...: every recipe whose needs the inputs
meet, after a summary that says where the time goes (per device or rank and
step: computation, communication, memcpy, host-bound, idle) and what to fix
first (every recipe's findings merged by subject and ranked by the time
each would save per step).  Options as for perflab run (--format, --output,
--fail-on, --set, ...).
]],
  parse = [[
usage: perflab parse FILE [options]

Shows what was read from FILE: format, metadata, tables (rows, columns) and
diagnostics.  With --table NAME, prints that table in full.
  --table NAME        print one table
  --format text|markdown|json|csv   how to print it (default text)
  --input-format ID   read the file as format ID instead of detecting it
  --lenient           salvage what parses; list what was skipped
  --raw-text          ncu metrics.raw: keep the printed text of numbers too
                      (by default only of values that are not numbers)
  --max-rows N        print at most N rows (default: all)
  --jobs N            read on N threads (default: the number of cores; a
                      Kineto trace, ncu text or CSV, generic CSV, kernel
                      table or nvprof GPU trace is split among them); the
                      tables do not depend on N
]],
  recipes = [[
usage: perflab recipes [--format text|markdown|json|csv]
       perflab recipes --source NAME       print a recipe's Lua source
       perflab recipes --copy NAME DIR     copy it to DIR/NAME.lua, to edit

Lists the recipes on the search path and where each came from.  A recipe
copied into ./recipes (or ~/.config/perflab/recipes) runs instead of the
bundled one of the same name; give the copy another name to keep both.
]],
  formats = "usage: perflab formats\n\nLists the input formats perflab reads and the tables each provides.\n",
  gpus = "usage: perflab gpus\n\nLists the GPU models and compute capabilities perflab knows.\n",
  demo = "usage: perflab demo\n\nRuns the bundled recipes on the bundled example profiles (examples/).\n",
  repl = [[
usage: perflab repl [FILE...] [--jsonl] [--input-format ID]

Interactive session.  Files named are loaded first as p1, p2, ... (all in
`profiles`).  With stdin not a terminal: no prompts, exit 2 if a chunk failed.
  --jsonl   the cell protocol: one JSON object {"id", "code"} per line in,
            one {"id", "ok", "values", "stdout", "error"} per line out
            (README.md, "Cell protocol")
]],
  jupyter = [[
usage: perflab jupyter install [--user | --prefix DIR] [--python PYTHON] [--name NAME]

Writes a Jupyter kernelspec so JupyterLab, Notebook and jupyter console offer
a "perflab (Lua)" kernel: kernel.json and perflab_kernel.py, a small ipykernel
wrapper (Debian: apt-get install python3-ipykernel) that runs the cells in a
`perflab repl --jsonl` child of this very binary.
  (default)      /usr/local/share/jupyter/kernels/NAME (system-wide)
  --user         $JUPYTER_DATA_DIR or ${XDG_DATA_HOME:-~/.local/share}/jupyter, kernels/NAME
  --prefix DIR   DIR/share/jupyter/kernels/NAME (a virtualenv, a test prefix)
  --python PY    the Python that runs the kernel (default: the first of
                 /usr/bin/python3 and python3 that can import ipykernel)
  --name NAME    kernelspec name (default perflab)
]],
}

local function write(s) io.stdout:write(s) end

--- Parses "--opt value", "--opt=value" and flags; returns positional, options.
local function parse_args(args, spec)
  local pos, o = {}, { set = {} }
  local i = 1
  while i <= #args do
    local a = args[i]
    if a == "--" then
      for k = i + 1, #args do pos[#pos + 1] = args[k] end
      break
    elseif a:sub(1, 2) == "--" or (a:sub(1, 1) == "-" and #a == 2 and a ~= "-") then
      local name, val = a:match("^%-%-([^=]+)=(.*)$")
      name = name or a:gsub("^%-%-?", "")
      if name == "h" then name = "help" end
      local kind = spec[name]
      if kind == nil then fail(string.format("unknown option '%s' (see perflab help %s)", a, spec._cmd)) end
      if kind == "flag" then
        if val then fail(string.format("option --%s takes no value", name)) end
        o[name] = true
      elseif kind == "files" then
        -- --baseline A B C: every following argument up to the next option
        o[name] = o[name] or {}
        if val then o[name][#o[name] + 1] = val end
        while args[i + 1] ~= nil and args[i + 1]:sub(1, 1) ~= "-" do
          i = i + 1
          o[name][#o[name] + 1] = args[i]
        end
        if #o[name] == 0 then fail(string.format("option --%s needs at least one file", name)) end
      else
        if not val then
          i = i + 1
          val = args[i]
          if val == nil then fail(string.format("option --%s needs a value", name)) end
        end
        if kind == "list" then
          local k, v = val:match("^([^=]+)=(.*)$")
          if not k then fail(string.format("--%s expects KEY=VALUE, got '%s'", name, val)) end
          o.set[k] = v
        else
          o[name] = val
        end
      end
    else
      pos[#pos + 1] = a
    end
    i = i + 1
  end
  return pos, o
end

local function output_format(o)
  local f = o.format or "text"
  if f == "md" then f = "markdown" end
  if not out_formats[f] then
    -- an input format id given as --format: treat as --input-format
    for _, fm in ipairs(perflab.formats.list()) do
      if fm.id == f then o["input-format"] = f; return "text" end
    end
    fail(string.format("unknown format '%s' (output: text, markdown, json, csv, html; input formats: perflab formats)",
        f))
  end
  return f
end

local function jobs_opt(o)
  if not o.jobs then return nil end
  local j = math.tointeger(tonumber(o.jobs))
  if not j or j < 1 then fail(string.format("--jobs expects a whole number >= 1, got '%s'", o.jobs)) end
  return j
end

local function load_opts(o)
  return { format = o["input-format"], lenient = o.lenient or nil, raw_text = o["raw-text"] or nil, jobs = jobs_opt(o) }
end

--- the width text output fits: the terminal's, or 120 columns when
-- stdout is not a terminal
local function term_width()
  if sys.isatty(1) then return sys.term_width() or 120 end
  return 120
end

-- ---- run -------------------------------------------------------------------

local function write_outputs(dir, rep, o)
  require("perflab.sandbox").allow_write(dir)
  local ok, err = sys.mkdir(dir)
  if not ok then fail("--output: " .. err) end
  local written = {}
  local function put(name, text)
    local p = dir .. "/" .. name
    local okw, e = sys.write_atomic(p, text)
    if not okw then fail("cannot write " .. e) end
    written[#written + 1] = p
  end
  put("report.txt", rep:render("text", { width = 120, full_names = o and o["full-names"] }))
  put("report.md", rep:render("markdown"))
  put("report.json", rep:render("json"))
  put("report.html", rep:render("html"))
  for _, name in ipairs(rep.table_order) do put(name .. ".csv", rep.tables[name]:to_csv()) end
  for _, name in ipairs(rep.figure_order) do
    put(name:match("%.svg$") and name or (name .. ".svg"), rep.figures[name].svg)
  end
  return written
end

--- the rows a recipe table shows in text and Markdown: --max-rows N (0: all),
--- else `default` (nil: all).  perflab report shows REPORT_ROWS per table: a
--- per-launch table of a 40 000-launch trace is no reading matter in a
--- terminal; CSV, JSON and --output keep every row.
local REPORT_ROWS = 50
local function max_rows(o, default)
  if o["max-rows"] == nil then return default end
  local n = math.tointeger(tonumber(o["max-rows"]))
  if not n or n < 0 then fail("--max-rows needs a whole number >= 0 (0: every row), found "
      .. tostring(o["max-rows"])) end
  return n > 0 and n or nil
end

--- The input files of pos[2..]: a folder given as input stands for the files
--- in it (not hidden, not its subfolders), in name order -- the ranks of a
--- job are often handed over as the folder that holds them.
local function expand_inputs(pos)
  local out = { pos[1] }
  for k = 2, #pos do
    local a = pos[k]
    if sys.isdir(a) then
      local n = #out
      for _, f in ipairs(sys.listdir(a)) do
        local path = (a:sub(-1) == "/" and a or (a .. "/")) .. f
        if sys.isfile(path) then out[#out + 1] = path end
      end
      if #out == n then
        fail(string.format("%s: a folder with no files in it (a folder given as input stands for the files in it, "
          .. "not its subfolders)", a))
      end
    else
      out[#out + 1] = a
    end
  end
  return out
end

local function run_all(pos, o, fmt, failon)
  if fmt == "csv" then fail("run all: --format csv prints one report's tables; use --output DIR or another format") end
  local rows = max_rows(o, REPORT_ROWS)
  pos = expand_inputs(pos)
  local inputs = {}
  for k = 2, #pos do inputs[#inputs + 1] = profile.load(pos[k], load_opts(o)) end
  if #inputs == 0 then fail("run all needs input files: perflab run all FILE...") end
  if o.gpu then o.set.gpu = o.gpu end
  local reps, skipped = recipes.run_all(inputs, o.set)
  if #reps == 0 then fail("run all: no recipe could run on these inputs: " .. table.concat(skipped, "; ")) end
  if #skipped > 0 then io.stderr:write("perflab: not run: " .. table.concat(skipped, "; ") .. "\n") end
  -- the answer first: where the time goes and what to fix, from every report
  local summary = require "perflab.summary"
  local sum = summary.build(reps, inputs)
  if fmt == "html" then
    write(require("perflab.html").page(reps, { summary = sum }))
  elseif fmt == "json" then
    -- {"summary": {...}, "reports": [report...]}
    local parts = {}
    for i, rep in ipairs(reps) do parts[i] = rep:render("json"):gsub("\n$", "") end
    write("{\n\"summary\": " .. perflab.json.encode(summary.to_data(sum), "  ", "\n")
      .. ",\n\"reports\": [\n" .. table.concat(parts, ",\n") .. "\n]\n}\n")
  else
    write(summary.render(sum, fmt, { width = term_width(), full_names = o["full-names"] }))
    for _, rep in ipairs(reps) do
      write("\n")
      write(rep:render(fmt, { width = term_width(), full_names = o["full-names"], max_rows = rows }))
    end
  end
  if o.output then
    require("perflab.sandbox").allow_write(o.output)
    local n = 0
    for _, rep in ipairs(reps) do n = n + #write_outputs(o.output .. "/" .. rep.recipe, rep, o) end
    local okw, e = sys.write_atomic(o.output .. "/report.html", require("perflab.html").page(reps, { summary = sum }))
    if not okw then fail("cannot write " .. e) end
    io.stderr:write(string.format("perflab: wrote %d files to %s\n", n + 1, o.output))
  end
  if failon then
    for _, rep in ipairs(reps) do
      local top = rep:max_severity()
      if top and report_mod.levels[top] >= report_mod.levels[failon] then return 1 end
    end
  end
  return 0
end

--- perflab report FILE... [options]: the same as perflab run all FILE...
function M.report(args)
  for _, a in ipairs(args) do
    if a == "--help" or a == "-h" then write(usage.report); return 0 end
  end
  table.insert(args, 1, "all")
  return M.run(args)
end

function M.run(args)
  local pos, o = parse_args(args, { _cmd = "run", format = "value", output = "value", ["fail-on"] = "value",
    set = "list", table = "value", ["input-format"] = "value", lenient = "flag", gpu = "value", help = "flag",
        ["full-names"] = "flag", ["max-rows"] = "value",
    baseline = "files", target = "files", jobs = "value", map = "value", merge = "files" })
  if pos[1] == "all" and not o.help then
    return run_all(pos, o, output_format(o), o["fail-on"] and report_mod.severity(o["fail-on"]))
  end
  if o.help and pos[1] then write(recipes.help(pos[1])); return 0 end
  if o.help or #pos == 0 then write(usage.run); return o.help and 0 or 2 end
  if o.gpu then o.set.gpu = o.gpu end
  if o.map then
    -- the map step of a multi-rank recipe: one file's summary into --output
    if not o.output then fail("--map FILE needs --output DIR (where the summary goes)") end
    if #pos > 1 or o.merge then fail("--map takes one FILE, and no other input files or --merge") end
    local lo = load_opts(o)
    lo.tables = recipes.load(pos[1]).tables
    local files = recipes.map_write(pos[1], profile.load(o.map, lo), o.set, o.output)
    io.stderr:write(string.format("perflab: wrote %d files to %s\n", #files, o.output))
    return 0
  end
  local fmt = output_format(o)
  local failon = o["fail-on"] and report_mod.severity(o["fail-on"])
  local rows = max_rows(o)
  pos = expand_inputs(pos)
  local r = recipes.load(pos[1])
  local nroles = #(o.baseline or {}) + #(o.target or {})
  if #pos < 2 and nroles == 0 and #r.needs > 0 and not o.merge then
    fail(string.format("recipe '%s' needs input files: perflab run %s FILE...", r.name, r.name))
  end
  if o.gpu then o.set.gpu = o.gpu end
  local inputs = {}
  -- a recipe that lists the tables it reads gets only those built
  local lo = load_opts(o)
  lo.tables = r.tables
  if #pos > 2 or lo.jobs then
    -- several files: parsed side by side (perflab.load_many)
    local files = {}
    for k = 2, #pos do files[#files + 1] = pos[k] end
    inputs = profile.load_many(files, lo)
  else
    for k = 2, #pos do inputs[#inputs + 1] = profile.load(pos[k], lo) end
  end
  -- comparison inputs: each profile carries its role ("baseline" / "target")
  for _, role in ipairs({ "baseline", "target" }) do
    for _, f in ipairs(o[role] or {}) do
      local p = profile.load(f, lo)
      p.role = role
      inputs[#inputs + 1] = p
    end
  end
  local rep
  if o.merge then
    if #pos > 1 then fail("--merge DIR... takes no input files") end
    rep = recipes.merge_dirs(r, o.merge, o.set)
  else
    rep = recipes.run(r, inputs, o.set)
  end
  rep:write(io.stdout, fmt, { width = term_width(), table = o.table, full_names = o["full-names"],
    max_rows = rows })
  if o.output then
    local files = write_outputs(o.output, rep, o)
    io.stderr:write(string.format("perflab: wrote %d files to %s\n", #files, o.output))
  end
  if failon then
    local top = rep:max_severity()
    if top and report_mod.levels[top] >= report_mod.levels[failon] then return 1 end
  end
  return 0
end

-- ---- export ----------------------------------------------------------------

usage.export = [[
usage: perflab export chrome-trace FILE [-o OUT.json] [--window START:END]

Writes the timeline of FILE (a Kineto trace, an nvprof GPU trace, a rocprof
kernel trace: kernels with start times) as Chrome-trace JSON that
ui.perfetto.dev and chrome://tracing open: one track per device stream and
per CPU thread, launch -> kernel flow arrows, timestamps in microseconds with
the nanoseconds kept.  Profiler steps (ProfilerStep#N) and user annotations
are written as Kineto writes them (user_annotation, gpu_user_annotation),
NVTX ranges as category "nvtx", and processes and threads keep the names
the input records: reading the export back gives them again.
  -o, --output FILE   write there (atomically) instead of stdout
  --window START:END  only events overlapping [START, END], times from the
                      trace's first event, with a unit: 2ms:5.5ms, 100us:1s
                      (ns, us, ms, s; a bare number is ns)
  --input-format ID   read FILE as format ID
  --critical-path     mark the events on the critical path of a step
                      (args.critical = 1) and draw flow arrows between them
                      (cat "critical_path"; the critical-path recipe's graph)
  --annotation TEXT   the step for --critical-path (default: ProfilerStep, or
                      the whole trace without steps; "" the whole trace)
  --instance N        which instance of it (0-based, time order; default 0)
]]

function M.export(args)
  local pos, o = parse_args(args, { _cmd = "export", o = "value", output = "value", window = "value",
    ["input-format"] = "value", lenient = "flag", help = "flag",
    ["critical-path"] = "flag", annotation = "value", instance = "value" })
  if o.help then write(usage.export); return 0 end
  if pos[1] ~= "chrome-trace" or #pos ~= 2 then io.stderr:write(usage.export); return 2 end
  local lo = load_opts(o)
  lo.tables = { "kernels", "memcpy", "memset", "runtime", "cpu_ops", "steps",   -- what the export reads
                "events", "nvtx", "processes", "threads" }
  local p = profile.load(pos[2], lo)
  local trace = require "perflab.trace"
  local opts = {}
  if o.window then opts.window = trace.parse_window(o.window, p) end
  if o["critical-path"] then
    local inst = o.instance and math.tointeger(tonumber(o.instance))
    if o.instance and (not inst or inst < 0) then fail("--instance needs a whole number >= 0, found " .. o.instance) end
    local r, why = require("perflab.critical_path").analyze(p, { annotation = o.annotation, instance = inst or 0 })
    if not r then fail(string.format("%s: no critical path: %s", pos[2], why)) end
    opts.critical_path = r
  elseif o.annotation or o.instance then
    fail("--annotation and --instance go with --critical-path")
  end
  local text = trace.chrome(p, opts)
  local dest = o.o or o.output
  if dest then
    local okw, e = sys.write_atomic(dest, text)
    if not okw then fail("cannot write " .. e) end
  else
    write(text)
  end
  return 0
end

-- ---- parse -----------------------------------------------------------------

local function describe_profile(p, fmt)
  if fmt == "json" then
    local tables = {}
    for _, n in ipairs(p:table_names()) do
      local t = p.tables[n]
      local cols = {}
      local types, docs = t:types(), t:docs()
      for i, c in ipairs(t:columns()) do cols[i] = { name = c, type = types[c], doc = docs[c] } end
      tables[#tables + 1] = { name = n, rows = t:nrows(), columns = cols }
    end
    return perflab.json.encode({ source = p.source, format = p.format, meta = p.meta, tables = tables,
      diagnostics = p.diagnostics }, "  ") .. "\n"
  end
  local md = fmt == "markdown"
  local out = {}
  out[#out + 1] = md and string.format("## `%s` (%s)", p.source, p.format)
      or string.format("%s: %s", p.source, p.format)
  local keys = {}
  for k in pairs(p.meta) do keys[#keys + 1] = k end
  table.sort(keys)
  if #keys > 0 then
    out[#out + 1] = md and "\n**meta**\n" or "meta:"
    for _, k in ipairs(keys) do
      out[#out + 1] = md and string.format("- %s: %s", k, tostring(p.meta[k]))
          or string.format("  %-16s %s", k, tostring(p.meta[k]))
    end
  end
  out[#out + 1] = md and "\n**tables**\n" or "tables:"
  for _, n in ipairs(p:table_names()) do
    local t = p.tables[n]
    local types = t:types()
    local cols = {}
    for i, c in ipairs(t:columns()) do cols[i] = c .. ":" .. types[c] end
    if md then
      out[#out + 1] = string.format("- `%s`: %d rows; %s", n, t:nrows(), table.concat(cols, ", "))
    else
      out[#out + 1] = string.format("  %-22s %9d rows  %s", n, t:nrows(), table.concat(cols, " "))
    end
  end
  if #p.diagnostics > 0 then
    out[#out + 1] = md and string.format("\n**diagnostics** (%d)\n", #p.diagnostics)
        or string.format("diagnostics (%d):", #p.diagnostics)
    for i, d in ipairs(p.diagnostics) do
      if i > 20 then out[#out + 1] = string.format("  … %d more (perflab parse --table diagnostics)",
          #p.diagnostics - 20); break end
      out[#out + 1] = string.format(md and "- line %d: %s" or "  line %d: %s", d.line, d.message)
    end
  end
  return table.concat(out, "\n") .. "\n"
end

function M.parse(args)
  local pos, o = parse_args(args, { _cmd = "parse", format = "value", table = "value", ["input-format"] = "value",
    lenient = "flag", ["raw-text"] = "flag", ["max-rows"] = "value", jobs = "value", help = "flag" })
  if o.help or #pos ~= 1 then write(usage.parse); return o.help and 0 or 2 end
  local fmt = output_format(o)
  local lo = load_opts(o)
  if o.table and o.table ~= "diagnostics" then lo.tables = { o.table } end
  local p = profile.load(pos[1], lo)
  if not o.table then write(describe_profile(p, fmt)); return 0 end
  local t
  if o.table == "diagnostics" then
    local rows = {}
    for i, d in ipairs(p.diagnostics) do rows[i] = { line = d.line, message = d.message } end
    t = perflab.table.from_rows(rows, { "line", "message" }, "diagnostics")
  else
    -- the parser built only the table asked for; to name the tables the
    -- file does have, read it again in full
    if not p:has(o.table) then p = profile.load(pos[1], load_opts(o)) end
    t = p:table(o.table)
  end
  local maxrows = tonumber(o["max-rows"] or "0")
  if maxrows and maxrows > 0 then t = t:head(maxrows) end
  if fmt == "csv" then write(t:to_csv())
  elseif fmt == "json" then write(t:to_json() .. "\n")
  elseif fmt == "markdown" then write(t:format { markdown = true })
  else write(t:format {}) end
  return 0
end

-- ---- listings --------------------------------------------------------------

local function print_rows(rows, cols, fmt)
  local t = perflab.table.from_rows(rows, cols)
  if fmt == "json" then write(t:to_json() .. "\n")
  elseif fmt == "csv" then write(t:to_csv())
  elseif fmt == "markdown" then write(t:format { markdown = true })
  else write(t:format { width = 80 }) end
end

--- The source text of a recipe on the search path (the one that runs).
local function recipe_source(name)
  local r = recipes.load(name)   -- fails naming the recipes there are
  local path = r.chunk
  local text
  if r.origin == "bundled" then text = sys.embedded(path)
  else
    local f = io.open(path, "rb")
    if f then text = f:read("a"); f:close() end
  end
  if not text then fail(string.format("cannot read the source of recipe '%s' (%s)", name, tostring(path))) end
  return text, r
end

function M.recipes(args)
  local pos, o = parse_args(args, { _cmd = "recipes", format = "value", help = "flag", source = "value",
      copy = "value" })
  if o.help then write(usage.recipes); return 0 end
  if o.source then write((recipe_source(o.source))); return 0 end
  if o.copy then
    -- perflab recipes --copy NAME DIR: DIR/NAME.lua, to edit; a recipe in
    -- ./recipes or the user folder then runs instead of the bundled one
    local dir = pos[1]
    if not dir
        or #pos > 1 then fail("usage: perflab recipes --copy NAME DIR (DIR: ./recipes, or ~/.config/perflab/recipes)") end
    local text = recipe_source(o.copy)
    local ok, err = sys.mkdir(dir)
    if not ok then fail(string.format("cannot create %s: %s", dir, err)) end
    local dest = dir .. "/" .. o.copy .. ".lua"
    if sys.isfile(dest) then fail(string.format("%s exists: not overwritten", dest)) end
    local okw, e = sys.write_atomic(dest, text)
    if not okw then fail("cannot write " .. e) end
    write(string.format("copied recipe '%s' to %s\n", o.copy, dest))
    return 0
  end
  if #pos > 0 then fail(string.format("perflab recipes takes no argument '%s' (--source NAME, --copy NAME DIR)",
      pos[1])) end
  local rows = {}
  for i, r in ipairs(recipes.list()) do rows[i] = { name = r.name, summary = r.summary, origin = r.origin } end
  print_rows(rows, { "name", "summary", "origin" }, output_format(o))
  return 0
end

function M.formats(args)
  local _, o = parse_args(args, { _cmd = "formats", format = "value", help = "flag" })
  if o.help then write(usage.formats); return 0 end
  local rows = {}
  for i, f in ipairs(perflab.formats.list()) do rows[i] = { id = f.id, tables = f.tables, summary = f.summary } end
  print_rows(rows, { "id", "tables", "summary" }, output_format(o))
  return 0
end

function M.gpus(args)
  local _, o = parse_args(args, { _cmd = "gpus", format = "value", help = "flag" })
  if o.help then write(usage.gpus); return 0 end
  local gpus = require "perflab.gpus"   -- always built: a load error is a bug to see
  local rows = gpus.rows()
  local cols = gpus.columns()
  print_rows(rows, cols, output_format(o))
  return 0
end

-- ---- demo ------------------------------------------------------------------

--- Where the bundled examples are: ./examples, then the source tree.
local function examples_dir()
  for _, d in ipairs({ "examples", os.getenv("PERFLAB_EXAMPLES") or "" }) do
    if d ~= "" and sys.isdir(d) then return d end
  end
  if sys.source_dir and sys.isdir(sys.source_dir .. "/examples") then return sys.source_dir .. "/examples" end
  return nil
end

--- The demo: each entry is a recipe and the example files it runs on.
M.demo_jobs = {
  { recipe = "top-kernels", files = { "kernel-table.txt" }, set = { top = 8 } },
  { recipe = "occupancy", files = { "ncu-details.txt" } },
  { recipe = "launch", files = { "ncu-details.txt" } },
  { recipe = "advice", files = { "ncu-details.txt" } },
  { recipe = "top-kernels", files = { "tb-profiler.json" }, set = { top = 5, group = "short_name" } },
}

function M.demo(args)
  local _, o = parse_args(args, { _cmd = "demo", format = "value", help = "flag" })
  if o.help then write(usage.demo); return 0 end
  local fmt = output_format(o)
  local dir = examples_dir()
  if not dir then fail("cannot find the bundled examples/ directory (run from the perflab source tree or set PERFLAB_EXAMPLES)") end
  local ran = 0
  for _, job in ipairs(M.demo_jobs) do
    local inputs, missing = {}, false
    for _, f in ipairs(job.files) do
      local path = dir .. "/" .. f
      if not sys.isfile(path) then missing = true else inputs[#inputs + 1] = profile.load(path) end
    end
    local okr = pcall(recipes.load, job.recipe)
    if not missing and okr then
      if ran > 0 then write("\n") end
      local sets = {}
      for k, v in pairs(job.set or {}) do sets[#sets + 1] = " --set " .. k .. "=" .. tostring(v) end
      table.sort(sets)
      write(string.format("$ perflab run %s %s%s\n", job.recipe, table.concat(job.files, " "), table.concat(sets)))
      local rep = recipes.run(job.recipe, inputs, job.set)
      write(rep:render(fmt, { width = term_width(), max_rows = 6 }))
      ran = ran + 1
    end
  end
  if ran == 0 then fail("no demo job could run (examples missing?)") end
  return 0
end

-- ---- repl ------------------------------------------------------------------

function M.repl(args)
  local pos, o = parse_args(args, { _cmd = "repl", help = "flag", ["input-format"] = "value", jsonl = "flag" })
  if o.help then write(usage.repl); return 0 end
  local repl = require "perflab.repl"
  repl.setup({ files = pos, load_opts = load_opts(o), announce = not o.jsonl })
  if o.jsonl then
    repl.jsonl()
    return 0
  end
  local interactive = sys.isatty(0)
  local ok = require("perflab.session").repl(interactive)
  -- a session at a terminal ends well whatever was typed; piped input is a script
  return (ok or interactive) and 0 or 2
end

-- ---- jupyter ---------------------------------------------------------------

local function kernel_source()
  if sys.lua_dir then
    local f = io.open(sys.lua_dir .. "/../jupyter/perflab_kernel.py", "rb")
    if f then local s = f:read("a"); f:close(); return s end
  end
  return sys.embedded("jupyter/perflab_kernel.py")
end

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

local function can_import_ipykernel(py)
  return os.execute(shell_quote(py) .. " -c 'import ipykernel' >/dev/null 2>&1") == true
end

function M.jupyter(args)
  local pos, o = parse_args(args, { _cmd = "jupyter", user = "flag", prefix = "value", python = "value",
    name = "value", help = "flag" })
  if o.help then write(usage.jupyter); return 0 end
  if pos[1] ~= "install" or #pos > 1 then io.stderr:write(usage.jupyter); return 2 end
  if o.user and o.prefix then fail("perflab jupyter install: --user and --prefix exclude each other") end
  local name = o.name or "perflab"
  if not name:match("^[%w%._%-]+$") then fail(string.format("kernel name '%s': use letters, digits, '.', '_' and '-'",
      name)) end
  local dir
  if o.prefix then
    dir = o.prefix .. "/share/jupyter/kernels/" .. name
  elseif o.user then
    local data = os.getenv("JUPYTER_DATA_DIR")
    if not data or data == "" then
      local xdg = os.getenv("XDG_DATA_HOME")
      if not xdg or xdg == "" then
        local home = os.getenv("HOME")
        if not home then fail("perflab jupyter install --user: HOME is not set") end
        xdg = home .. "/.local/share"
      end
      data = xdg .. "/jupyter"
    end
    dir = data .. "/kernels/" .. name
  else
    dir = "/usr/local/share/jupyter/kernels/" .. name
  end
  local python = o.python
  if not python then
    for _, py in ipairs({ "/usr/bin/python3", "python3" }) do
      if can_import_ipykernel(py) then python = py; break end
    end
    if not python then
      python = "/usr/bin/python3"
      io.stderr:write("perflab: warning: no python3 here can import ipykernel; the kernel needs it " ..
        "(Debian: apt-get install python3-ipykernel)\n")
    end
  end
  local bin = sys.exe_path()
  if not bin or not bin:match("perflab[^/]*$") then
    fail("perflab jupyter install: cannot tell where the perflab binary is (run it as the perflab program)")
  end
  local src = kernel_source()
  if not src then fail("the Jupyter kernel is not part of this build") end
  local spec = {
    argv = { python, "-Xfrozen_modules=off", "{resource_dir}/perflab_kernel.py", "-f", "{connection_file}" },
    display_name = o.name and ("perflab (Lua, " .. name .. ")") or "perflab (Lua)",
    language = "lua",
    interrupt_mode = "signal",
    env = { PERFLAB_BIN = bin, PYDEVD_DISABLE_FILE_VALIDATION = "1" },
    metadata = { debugger = false },
  }
  local ok, err = sys.mkdir(dir)
  if not ok then fail(string.format("cannot create %s: %s", dir, err)) end
  for file, text in pairs({ ["kernel.json"] = perflab.json.encode(spec, "  ") .. "\n", ["perflab_kernel.py"] = src }) do
    local okw, e = sys.write_atomic(dir .. "/" .. file, text)
    if not okw then fail(string.format("cannot write %s/%s: %s", dir, file, e)) end
  end
  write(string.format("installed Jupyter kernel '%s' (%s) in %s\n", name, spec.display_name, dir))
  return 0
end

-- ---- serve -----------------------------------------------------------------

usage.serve = [[
usage: perflab serve DIR [--port N] [--host ADDR] [--token T | --no-token]
                         [--cache-memory SIZE] [--timeout S] [--max-memory SIZE]

A local web workbench over the profiles under DIR (docs/serve.md): the runs,
each run's report, a step's timeline, compare two runs or two sets, a job
folder's ranks.  Read-only; it serves nothing outside DIR.  Stop: Ctrl-C.
  --port N            TCP port (default 8000; 0: any free port)
  --host ADDR         address to bind (default 127.0.0.1, loopback only);
                      any other needs a token
  --token T           the token each request must carry (default: generated
                      and printed with the URL when --host is not loopback)
  --no-token          no token, even on another address (anyone who reaches it
                      reads every profile under DIR)
  --cache-memory SIZE parsed profiles and pages kept in memory, least recently
                      used out first (default a quarter of physical memory)
  --timeout S         stop one request's work after S seconds (the page says so)
  --workers N         requests served side by side, each worker a Lua state
                      with its own profile cache (default: cores, 2 to 4)
]]

function M.serve(args)
  local pos, o = parse_args(args, { _cmd = "serve", port = "value", host = "value", token = "value",
    ["no-token"] = "flag", ["cache-memory"] = "value", timeout = "value", workers = "value", help = "flag" })
  if o.help then write(usage.serve); return 0 end
  if #pos ~= 1 then io.stderr:write(usage.serve); return 2 end
  return require("perflab.serve").main(pos[1], o)
end

-- ---- help / dispatch -------------------------------------------------------

function M.help(args)
  local what = args[1]
  if not what then
    write([[
usage: perflab COMMAND [ARGS]      (perflab help COMMAND, perflab help RECIPE)

  report FILE...       every recipe that applies, the summary first (= run all)
  run RECIPE FILE...   run a recipe on profiles and print its report
  parse FILE           show what was read: tables, rows, columns
  export chrome-trace FILE   the timeline as Chrome-trace JSON for ui.perfetto.dev
  recipes              list recipes and where each comes from
  formats              list input formats and their tables
  gpus                 list known GPUs
  repl [FILE...]       interactive session, files preloaded (--jsonl: cell protocol)
  jupyter install      install the "perflab (Lua)" Jupyter kernel
  demo                 bundled recipes on bundled example profiles
  serve DIR            a local web workbench over the profiles under DIR
  perflab SCRIPT.lua [ARGS], perflab -e CODE, -l MOD, -i, -   as lua5.4

exit status: 0 success; 1 a finding at or above --fail-on; 2 bad usage,
unknown recipe or format, unreadable or malformed input.
]])
    return 0
  end
  if usage[what] then write(usage[what]); return 0 end
  write(recipes.help(what))
  return 0
end

function M.main(args)
  local cmd = table.remove(args, 1)
  local f = M[cmd]
  if type(f) ~= "function" or cmd == "main" then
    fail(string.format("unknown command '%s' (see perflab help)", tostring(cmd)))
  end
  return f(args)
end

return M
