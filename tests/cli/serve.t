perflab serve: the usage errors, before any socket is opened (the server
itself: tests/serve/security.py and browser.py, on the loopback address).

  $ perflab serve
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
  [2]

  $ perflab serve examples/kernel-table.txt
  perflab: serve: 'examples/kernel-table.txt' is not a folder
  [2]

  $ perflab serve examples --port 70000
  perflab: --port expects 0..65535, got '70000'
  [2]

  $ perflab serve examples --token abc --no-token
  perflab: serve: --token and --no-token exclude each other
  [2]

  $ perflab serve examples --token 'a b'
  perflab: --token: use letters, digits, '-', '_', '.' and '~'
  [2]

  $ perflab serve examples --timeout 0
  perflab: --timeout expects seconds (a positive number), got '0'
  [2]

  $ perflab serve examples --cache-memory lots
  perflab: --cache-memory expects a size like 512M or 4G, got 'lots'
  [2]

  $ perflab serve examples --frobnicate
  perflab: unknown option '--frobnicate' (see perflab help serve)
  [2]

  $ perflab serve examples --workers 0
  perflab: --workers expects 1..16, got '0'
  [2]
