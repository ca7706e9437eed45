"""perflab Jupyter kernel: a thin ipykernel wrapper around the cell protocol.

Installed by `perflab jupyter install` next to its kernel.json.  It starts one
`perflab repl --jsonl` child per kernel (one Lua state: cells share it),
sends each cell as {"id", "code"} and turns the reply into Jupyter messages:
captured stdout as a stream, values as execute_result/display_data with
text/plain, text/markdown (tables, reports, profiles), text/html (tables,
reports) and image/svg+xml
(figures), errors as Jupyter errors.  Interrupts: Jupyter sends SIGINT to the
kernel's process group; this wrapper ignores it (ipykernel does) and the
perflab child turns it into an "interrupted" error reply.

Environment: PERFLAB_BIN (set in kernel.json) is the perflab binary.
"""
import json
import os
import signal
import subprocess
import sys
import threading

from ipykernel.kernelbase import Kernel

PERFLAB = os.environ.get("PERFLAB_BIN") or "perflab"


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class PerflabKernel(Kernel):
    implementation = "perflab"
    implementation_version = "1"
    language = "lua"
    language_version = "5.4"
    language_info = {
        "name": "lua",
        "version": "5.4",
        "mimetype": "text/x-lua",
        "file_extension": ".lua",
        "codemirror_mode": "lua",
        "pygments_lexer": "lua",
    }
    banner = "perflab (Lua 5.4): the perflab workbench; help() for help"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._lock = threading.Lock()
        self._seq = 0
        self._child = None
        self._start_child()

    # ipykernel makes SIGINT raise KeyboardInterrupt while a handler runs; here
    # it stays ignored: the interrupt is for the perflab child (same process
    # group), which answers the running cell with an "interrupted" error.
    def pre_handler_hook(self):
        pass

    def post_handler_hook(self):
        pass

    # -- the perflab child ----------------------------------------------------

    def _start_child(self):
        self._child = subprocess.Popen(
            [PERFLAB, "repl", "--jsonl"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            preexec_fn=_ignore_sigint,   # perflab catches SIGINT itself during a cell
        )

    def _request(self, req):
        """Sends one request, returns the decoded reply (None if the child died)."""
        with self._lock:
            if self._child is None or self._child.poll() is not None:
                self._start_child()
            self._seq += 1
            req["id"] = self._seq
            try:
                self._child.stdin.write((json.dumps(req) + "\n").encode("utf-8"))
                self._child.stdin.flush()
                line = self._child.stdout.readline()
            except (BrokenPipeError, OSError):
                line = b""
            if not line:
                return None
            return json.loads(line.decode("utf-8", errors="replace"))

    # -- Jupyter messages -------------------------------------------------------

    def _bundles(self, value):
        """Jupyter MIME bundles for one value of the cell protocol."""
        text = value.get("text", "").rstrip("\n")
        main = {"text/plain": text}
        if "markdown" in value:
            main["text/markdown"] = value["markdown"]
        if "html" in value:
            main["text/html"] = value["html"]
        extra = []
        figures = value.get("figures")
        if figures:
            for fig in figures:
                extra.append({"image/svg+xml": fig["svg"], "text/plain": fig.get("title") or fig.get("name", "")})
        elif "svg" in value:
            main["image/svg+xml"] = value["svg"]
        return main, extra

    def do_execute(self, code, silent, store_history=True, user_expressions=None, allow_stdin=False):
        reply = self._request({"code": code})
        if reply is None:
            return self._error("PerflabDied", "the perflab process ended; it restarts on the next cell",
                               ["the perflab process ended (state is lost); it restarts on the next cell"], silent)
        if reply.get("stdout") and not silent:
            self.send_response(self.iopub_socket, "stream", {"name": "stdout", "text": reply["stdout"]})
        if not reply.get("ok"):
            err = reply.get("error") or "error"
            if reply.get("interrupted"):
                ename = "KeyboardInterrupt"
            elif reply.get("user_error"):
                ename = "PerflabError"
            else:
                ename = "LuaError"
            return self._error(ename, err.split("\n", 1)[0], err.split("\n"), silent)
        values = reply.get("values") or []
        if not silent:
            for i, v in enumerate(values):
                main, extra = self._bundles(v)
                if i == len(values) - 1:
                    self.send_response(self.iopub_socket, "execute_result",
                                       {"execution_count": self.execution_count, "data": main, "metadata": {}})
                else:
                    self.send_response(self.iopub_socket, "display_data", {"data": main, "metadata": {}})
                for b in extra:
                    self.send_response(self.iopub_socket, "display_data", {"data": b, "metadata": {}})
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    def _error(self, ename, evalue, traceback, silent):
        content = {"ename": ename, "evalue": evalue, "traceback": traceback}
        if not silent:
            self.send_response(self.iopub_socket, "error", content)
        content.update({"status": "error", "execution_count": self.execution_count})
        return content

    def do_complete(self, code, cursor_pos):
        prefix = code[:cursor_pos]
        reply = self._request({"complete": prefix})
        matches, start = [], cursor_pos
        if reply and reply.get("ok"):
            matches = reply.get("matches") or []
            # the reply's start is a 1-based byte offset into prefix
            raw = prefix.encode("utf-8")[: max(int(reply.get("start", 1)) - 1, 0)]
            start = len(raw.decode("utf-8", errors="ignore"))
        return {"status": "ok", "matches": matches, "cursor_start": start, "cursor_end": cursor_pos, "metadata": {}}

    def do_is_complete(self, code):
        reply = self._request({"is_complete": code})
        if reply and reply.get("ok"):
            status = reply.get("status", "unknown")
            return {"status": status, "indent": "  " if status == "incomplete" else ""}
        return {"status": "unknown"}

    def do_shutdown(self, restart):
        child = self._child
        if child is not None and child.poll() is None:
            try:
                child.stdin.close()
                child.wait(timeout=5)
            except Exception:
                child.kill()
        if restart:
            self._start_child()
        return {"status": "ok", "restart": restart}


if __name__ == "__main__":
    from ipykernel.kernelapp import IPKernelApp
    IPKernelApp.launch_instance(kernel_class=PerflabKernel)
