The cell protocol: perflab repl --jsonl reads one JSON object per line
({"id", "code"}) and answers one per line ({"id", "ok", "values", "stdout",
"error"}).  State is kept between cells; errors do not end the session.

Values: "text" as the REPL prints it, "data" as JSON (full precision).

  $ printf '%s\n' '{"id": 1, "code": "x = 1/3"}' '{"id": 2, "code": "x, 42, 0.1, true, \"s\""}' | perflab repl --jsonl
  {"id":1,"ok":true,"stdout":"","values":[]}
  {"id":2,"ok":true,"stdout":"","values":[{"data":"0.3333333333333333","text":"0.3333333333333333\n"},{"data":"42","text":"42\n"},{"data":"0.1","text":"0.1\n"},{"data":"true","text":"true\n"},{"data":"\"s\"","text":"\"s\"\n"}]}

print, io.write and io.stdout go to "stdout"; plain tables also come as JSON data.

  $ printf '%s\n' '{"id": 3, "code": "print(\"hi\"); io.write(\"there\\n\"); return {a = 1, b = {2, 3}}"}' | perflab repl --jsonl
  {"id":3,"ok":true,"stdout":"hi\nthere\n","values":[{"data":"{\"a\":1,\"b\":[2,3]}","text":"{a = 1, b = {2, 3}}\n"}]}

Errors: a Lua error (with its traceback), a user-facing perflab error
("user_error"), a syntax error and a line that is not JSON; the session goes on.

  $ printf '%s\n' '{"id": 4, "code": "error(\"boom\", 0)"}' '{"id": 5, "code": "perflab.load(\"/nonexistent\")"}' '{"id": 6, "code": "1 +"}' 'not json' '{"id": 7, "code": "\"still here\""}' | perflab repl --jsonl
  {"error":"boom\nstack traceback:\n\t[C]: in function 'error'\n\tcell[4]:1: in main chunk","id":4,"ok":false,"stdout":"","values":[]}
  {"error":"/nonexistent: cannot open: No such file or directory","id":5,"ok":false,"stdout":"","user_error":true,"values":[]}
  {"error":"cell[6]:1: unexpected symbol near '1'","id":6,"ok":false,"stdout":"","values":[]}
  {"error":"bad request (expected one JSON object per line): Expected value but found invalid token at character 1","ok":false,"stdout":"","values":[]}
  {"id":7,"ok":true,"stdout":"","values":[{"data":"\"still here\"","text":"\"still here\"\n"}]}

A perflab table: aligned text and Markdown.

  $ printf '%s\n' '{"id": "t", "code": "perflab.load(\"examples/kernel-table.txt\"):table(\"kernels\"):head(2):select{\"name\", \"duration_ns\"}"}' | perflab repl --jsonl
  {"id":"t","ok":true,"stdout":"","values":[{"html":"<p><b>select(head(kernels))</b> — 2 rows × 2 columns</p>\n<div class=\"tbl\"><table class=\"data\"><thead><tr>\n<th>name</th>\n<th class=\"num\">duration_ns <span class=\"unit\">(time)</span></th>\n</tr></thead><tbody>\n<tr><td class=\"name\">elementwise_kernel_with_index</td><td class=\"num\" data-v=\"4160\" title=\"4160\">4.16 µs</td></tr>\n<tr><td class=\"name\">unrolled_elementwise_kernel</td><td class=\"num\" data-v=\"6912\" title=\"6912\">6.91 µs</td></tr>\n</tbody></table></div>\n","markdown":"**select(head(kernels))** — 2 rows × 2 columns\n\n| name                          | duration_ns |\n| ----------------------------- | ----------: |\n| elementwise_kernel_with_index |        4160 |\n| unrolled_elementwise_kernel   |        6912 |\n","text":"table 'select(head(kernels))': 2 rows x 2 columns\nname                           duration_ns\n-----------------------------  -----------\nelementwise_kernel_with_index         4160\nunrolled_elementwise_kernel           6912\n"}]}

State between cells: a report made in one cell is used in the next
(56058272 ns: elementwise_kernel's total, awk over examples/kernel-table.txt).

  $ printf '%s\n' '{"id": "r", "code": "r = perflab.run(\"top-kernels\", \"examples/kernel-table.txt\", {top = 1})"}' '{"id": "s", "code": "r.tables.top_kernels:col(\"total_ns\"):sum(), #r.findings"}' | perflab repl --jsonl
  {"id":"r","ok":true,"stdout":"","values":[]}
  {"id":"s","ok":true,"stdout":"","values":[{"data":"56058272","text":"56058272.0\n"},{"data":"1","text":"1\n"}]}

