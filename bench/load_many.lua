-- bench/load_many.lua JOBS FILE... -- times perflab.load_many on JOBS
-- threads (every table of every file); prints "JOBS SECONDS FILES".
local sys = require "perflab.sys"
local jobs = tonumber(arg[1])
local files = {}
for i = 2, #arg do files[#files + 1] = arg[i] end
local t0 = sys.clock()
local ps = perflab.load_many(files, { jobs = jobs })
io.write(string.format("%d %.3f %d\n", jobs, sys.clock() - t0, #ps))
