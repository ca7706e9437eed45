"""tests/jupyter/test_kernel.py PERFLAB -- the "perflab (Lua)" Jupyter kernel.

Installs the kernelspec into a temporary prefix with `perflab jupyter install
--prefix`, starts it with jupyter_client's KernelManager (as JupyterLab does)
and executes cells: a value, print output, a table, a recipe report, figures,
errors, an interrupt, completion and is_complete.  Says SKIPPED and exits 77
(ctest: skipped) when this Python cannot import jupyter_client and ipykernel
(optional; Debian: python3-jupyter-client, python3-ipykernel).
"""
import json
import os

os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import ipykernel  # noqa: F401
    import jupyter_client  # noqa: F401
    from jupyter_client.manager import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager
except ImportError as e:
    print("SKIPPED (optional tool missing: %s): the Jupyter kernel test "
          "(apt-get install python3-jupyter-client python3-ipykernel)" % e)
    sys.exit(77)

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build/perflab")
failures = []


def check(what, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond else ": " + str(detail)))
    if not cond:
        failures.append(what)


def run_cell(kc, code, timeout=30, interrupt_after=None, km=None, expect_error=False):
    """Executes code; returns (reply content, [iopub messages for it]).
    expect_error: the cell is meant to fail, so it is sent with stop_on_error
    off; otherwise ipykernel aborts the requests that reach it in the moment
    after the failed cell's reply (as "Run All" stops at a failing cell), and
    on a loaded machine the next cell of the test can be one of them."""
    msg_id = kc.execute(code, stop_on_error=not expect_error)
    if interrupt_after is not None:
        time.sleep(interrupt_after)
        km.interrupt_kernel()
    outputs = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
        if msg["msg_type"] in ("stream", "execute_result", "display_data", "error"):
            outputs.append(msg)
    while True:
        reply = kc.get_shell_msg(timeout=timeout)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"], outputs


def of_type(outputs, t):
    return [m["content"] for m in outputs if m["msg_type"] == t]


def run_notebook(ksm):
    """examples/perflab.ipynb, every code cell in order, in a kernel started in
    examples/ (as Jupyter does for a notebook there)."""
    with open("examples/perflab.ipynb") as f:
        nb = json.load(f)
    check("notebook: kernelspec perflab", nb["metadata"]["kernelspec"]["name"] == "perflab", nb["metadata"])
    km = KernelManager(kernel_name="perflab", kernel_spec_manager=ksm)
    km.start_kernel(cwd=os.path.abspath("examples"))
    kc = km.client()
    kc.start_channels()
    results = []
    try:
        kc.wait_for_ready(timeout=60)
        for i, cell in enumerate(nb["cells"]):
            if cell["cell_type"] != "code":
                continue
            reply, outs = run_cell(kc, "".join(cell["source"]))
            check("notebook cell %d runs" % (i + 1), reply["status"] == "ok", reply)
            results.append(outs)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    texts = []
    for outs in results:
        data = {}
        for m in of_type(outs, "execute_result") + of_type(outs, "display_data"):
            data.update(m["data"])
        texts.append(data)
    check("notebook: the profile", "- `kernels`: 13065 rows" in texts[0].get("text/markdown", ""), texts[0])
    # slowest launch: 6734080 ns (sort -t"|" -k2 -n examples/kernel-table.txt | tail -1)
    check("notebook: slowest launches", "6734080" in texts[1].get("text/markdown", ""), texts[1])
    check("notebook: top-kernels report", texts[2].get("text/markdown", "").startswith("## top-kernels"), texts[2])
    check("notebook: group_by by hand agrees (56058272 ns)", "56058272" in texts[3].get("text/markdown", ""), texts[3])
    svg = texts[4].get("image/svg+xml", "")
    check("notebook: the figure is SVG with 5 bars", svg.startswith("<svg") and svg.count("<rect") == 5, svg[:200])


def main():
    prefix = tempfile.mkdtemp(prefix="perflab-jupyter-")
    try:
        out = subprocess.run([BIN, "jupyter", "install", "--prefix", prefix], capture_output=True, text=True)
        check("perflab jupyter install --prefix exits 0", out.returncode == 0, out.stderr)
        kdir = os.path.join(prefix, "share", "jupyter", "kernels", "perflab")
        with open(os.path.join(kdir, "kernel.json")) as f:
            spec = json.load(f)
        check("kernel.json: display name", spec["display_name"] == "perflab (Lua)", spec)
        check("kernel.json: PERFLAB_BIN is this binary", spec["env"]["PERFLAB_BIN"] == os.path.realpath(BIN), spec)
        check("kernel.json: the wrapper kernel is next to it", os.path.exists(os.path.join(kdir, "perflab_kernel.py")))
        # run the kernel with this Python (the one that has ipykernel)
        check("kernel.json: argv", spec["argv"][-3:] == ["{resource_dir}/perflab_kernel.py", "-f", "{connection_file}"], spec)
        spec["argv"][0] = sys.executable
        with open(os.path.join(kdir, "kernel.json"), "w") as f:
            json.dump(spec, f)

        ksm = KernelSpecManager(kernel_dirs=[os.path.join(prefix, "share", "jupyter", "kernels")])
        check("jupyter_client finds the kernelspec", "perflab" in ksm.find_kernel_specs(), ksm.find_kernel_specs())
        km = KernelManager(kernel_name="perflab", kernel_spec_manager=ksm)
        km.start_kernel(cwd=os.getcwd())
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=60)
            info = kc.kernel_info(reply=True, timeout=30)["content"]
            check("kernel_info: language lua", info["language_info"]["name"] == "lua", info)

            # a value
            reply, outs = run_cell(kc, "6 * 7")
            res = of_type(outs, "execute_result")
            check("a value: status ok", reply["status"] == "ok", reply)
            check("a value: execute_result 42", res and res[0]["data"]["text/plain"] == "42", outs)

            # state between cells, and printed output as a stream
            reply, outs = run_cell(kc, 'x = 20\nprint("hello from perflab")')
            reply, outs = run_cell(kc, "print(x + 1)")
            streams = of_type(outs, "stream")
            check("print -> stdout stream, state kept", streams and streams[0]["text"] == "21\n", outs)

            # a table: Markdown with the row count and a row limit
            reply, outs = run_cell(kc, 'p = load("examples/kernel-table.txt")\nt = p:table("kernels")\nreturn t')
            res = of_type(outs, "execute_result")
            md = res[0]["data"].get("text/markdown", "") if res else ""
            check("a table: text/markdown", "**kernels** — 13065 rows × 8 columns" in md, md[:200])
            check("a table: a Markdown table header", "| name " in md, md[:300])
            check("a table: row limit line", "… 13045 more rows (13065 in all)" in md, md[-200:])
            check("a table: text/plain as well", res[0]["data"]["text/plain"].startswith("table 'kernels': 13065 rows"), res)
            html = res[0]["data"].get("text/html", "") if res else ""
            check("a table: text/html, header and 20 rows", '<table class="data">' in html and html.count("<tr>") == 21, html[:300])
            check("a table: 20 of 13065 rows said", "20 of 13065 rows shown" in html, html[-300:])

            # a recipe report (56058272 ns = elementwise_kernel total, summed with awk over the file)
            reply, outs = run_cell(kc, 'run("top-kernels", p, {top = 3})')
            res = of_type(outs, "execute_result")
            md = res[0]["data"].get("text/markdown", "") if res else ""
            check("a report: Markdown heading", md.startswith("## top-kernels"), md[:200])
            check("a report: the dominant kernel finding", "`elementwise_kernel` takes 18.3 %" in md, md[:600])
            check("a report: its table", "| `elementwise_kernel`   " in md and "| 56058272 |" in md, md)
            html = res[0]["data"].get("text/html", "") if res else ""
            check("a report: text/html with the finding and the exact total on hover",
                  'class="finding sev-info"' in html and 'data-v="56058272" title="56058272">56.1 ms</td>' in html, html[:600])
            disp = of_type(outs, "display_data")
            check("a report: its figure as display_data image/svg+xml",
                  disp and "Share of kernel time by kernel" in disp[0]["data"].get("image/svg+xml", ""), outs)

            # figures: a report's figures as image/svg+xml, and an SVG string value
            svg = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="5" height="10"/></svg>'
            reply, outs = run_cell(kc, 'r = perflab.report{recipe = "figs"}\n'
                                   'r:figure("bars.svg", %s, {title = "Bars"})\nreturn r' % json.dumps(svg))
            disp = of_type(outs, "display_data")
            check("a report's figure: display_data image/svg+xml",
                  disp and disp[0]["data"].get("image/svg+xml") == svg, outs)
            reply, outs = run_cell(kc, "return %s" % json.dumps(svg))
            res = of_type(outs, "execute_result")
            check("an SVG string: image/svg+xml", res and res[0]["data"].get("image/svg+xml") == svg, outs)

            # errors: a Lua error and a perflab user-facing error; the session goes on
            reply, outs = run_cell(kc, 'error("boom")', expect_error=True)
            errs = of_type(outs, "error")
            check("a Lua error: status error", reply["status"] == "error" and reply["ename"] == "LuaError", reply)
            check("a Lua error: evalue", "boom" in reply.get("evalue", ""), reply)
            check("a Lua error: iopub error message", errs and "boom" in errs[0]["evalue"], outs)
            reply, outs = run_cell(kc, 'load("/nonexistent/file.txt")', expect_error=True)
            check("a perflab error", reply["status"] == "error" and reply["ename"] == "PerflabError"
                  and "cannot open" in reply["evalue"], reply)
            reply, outs = run_cell(kc, "x")
            res = of_type(outs, "execute_result")
            check("after errors the state is still there", res and res[0]["data"]["text/plain"] == "20", outs)

            # an interrupt: SIGINT through KernelManager.interrupt_kernel
            reply, outs = run_cell(kc, "n = 0\nwhile true do n = n + 1 end", interrupt_after=1.5, km=km,
                                   expect_error=True)
            check("interrupt: status error, KeyboardInterrupt",
                  reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt", reply)
            reply, outs = run_cell(kc, "n > 0, x")
            res = of_type(outs, "execute_result")
            disp = of_type(outs, "display_data")
            check("after the interrupt the kernel goes on with its state",
                  reply["status"] == "ok" and disp and disp[0]["data"]["text/plain"] == "true"
                  and res and res[0]["data"]["text/plain"] == "20", outs)

            # completion and is_complete
            c = kc.complete("t:col(\"dur", 10, reply=True, timeout=30)["content"]
            check("complete t:col(\"dur", c["matches"] == ["duration_ns"] and c["cursor_start"] == 7, c)
            c = kc.complete("perflab.lo", 10, reply=True, timeout=30)["content"]
            check("complete perflab.lo", c["matches"] == ["load", "load_many"] and c["cursor_start"] == 8, c)
            mid = kc.is_complete("for i = 1, 3 do")
            ic = kc.get_shell_msg(timeout=30)
            while ic["parent_header"].get("msg_id") != mid:
                ic = kc.get_shell_msg(timeout=30)
            ic = ic["content"]
            check("is_complete: incomplete", ic["status"] == "incomplete", ic)
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=False)
        run_notebook(ksm)
    finally:
        shutil.rmtree(prefix, ignore_errors=True)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
