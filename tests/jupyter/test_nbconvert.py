"""tests/jupyter/test_nbconvert.py PERFLAB -- a notebook holding perflab's
outputs exports to HTML with Debian's nbconvert (python3-nbconvert 6.5).

The outputs are what the kernel would display, taken from `perflab repl
--jsonl` (the cell protocol the kernel runs): a report (text/html: the
fragment with its own scoped CSS) and its figure (image/svg+xml).  nbconvert
6.5.3 crashed on inline SVG that carried an XML declaration; the export
must succeed and keep the SVG and the scoped style.  Exits 77 (skipped)
when this Python has no nbconvert.
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    import nbformat
    from nbconvert import HTMLExporter
except ImportError as e:
    print("SKIPPED (optional tool missing: %s): apt-get install python3-nbconvert" % e)
    sys.exit(77)

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/perflab")
cells = [
    {"id": "1", "code": "run(\"launch\", load(\"examples/ncu-details.txt\"))"},
]
inp = "".join(json.dumps(c) + "\n" for c in cells)
out = subprocess.run([BIN, "repl", "--jsonl"], input=inp.encode(), capture_output=True, timeout=120)
replies = [json.loads(l) for l in out.stdout.decode().splitlines() if l.strip()]
assert replies and replies[0]["ok"], replies
values = replies[0]["values"]
rich = values[-1]
html, figs = rich.get("html"), rich.get("figures") or []
assert html and figs, "the report has an HTML fragment and figures: %r" % list(rich)
failures = []
if "<?xml" in figs[0]["svg"]:
    failures.append("the figure's SVG carries an XML declaration")
if '<div class="perflab-report">' not in html or ".perflab-report h2" not in html:
    failures.append("the fragment has no scoped style")

nb = nbformat.v4.new_notebook()
cell = nbformat.v4.new_code_cell('r = run("launch", load("examples/ncu-details.txt")); r')
cell.outputs = [
    nbformat.v4.new_output("display_data", data={"text/html": html, "text/plain": rich.get("text", "")}),
    nbformat.v4.new_output("display_data", data={"image/svg+xml": figs[0]["svg"], "text/plain": figs[0]["title"]}),
]
nb.cells.append(cell)
try:
    body, _ = HTMLExporter().from_notebook_node(nb)
except Exception as e:   # the crash this test guards against
    print("FAIL nbconvert: %r" % e)
    sys.exit(1)
if "perflab-chart" not in body:
    failures.append("the exported page lost the SVG figure")
if ".perflab-report h2" not in body:
    failures.append("the exported page lost the report's scoped style")
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "nb.ipynb")
    nbformat.write(nb, path)
    r = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "html", path], capture_output=True, timeout=300)
    if r.returncode != 0:
        failures.append("python3 -m nbconvert --to html: exit %d: %s" % (r.returncode, r.stderr.decode()[-500:]))
    elif not os.path.exists(os.path.join(d, "nb.html")):
        failures.append("nbconvert wrote no nb.html")
for f in failures:
    print("FAIL " + f)
if failures:
    sys.exit(1)
print("OK: exported %d bytes of HTML" % len(body))
