#!/usr/bin/env python3
"""Opens a ptxray HTML page in headless Chromium and reports what the
browser rendered, for tests/test_html.c (docs/html.md, "Tests").

    html_dom.py CHROMIUM PAGE.html KERNEL_INDEX SOURCE_LINE

Drives Chromium through the DevTools protocol over --remote-debugging-pipe
(standard library only: messages are JSON separated by NUL bytes on file
descriptors 3 and 4).  Prints one JSON object:
  summary: the summary table's rows, [[cell texts], ...]
  groups: [[id, open, deflated, summary text, kernel sections], ...] of the page's <details> groups
          as loaded
  inflated: whether the kernel was in a closed, deflated group: reached through its link
          (location.hash = kK), as a reader's click reaches it
  marks:  [[line, data-rules, [badge texts]], ...] of the kernel's marked source rows
  spills: [[line, data-ra, [spill badge texts], row classes], ...] of its rows with spill code (a
          regalloc run's, analyze --budget)
  noline: the data-ra of the kernel's spill code on instructions without a source line (null: none)
  regalloc: the text of the kernel summary's regalloc line (null when none)
  nodes:  [[svg id, svg class, fill of its shape], ...] of the kernel's CFG nodes
  before: whether any PTX group of the kernel is visible before the click
  click:  after a real mouse click on SOURCE_LINE's row (Input.dispatchMouseEvent
          at its centre): the visible PTX group's id, heading and rows
          ([[ptx line, instruction, [value texts], [spill badge texts]], ...]), and whether the
          row is selected
"""
import json
import os
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, chromium):
        self.dir = tempfile.TemporaryDirectory(prefix="ptxray-chromium-")
        to_r, to_w = os.pipe()    # we write commands, Chromium reads fd 3
        from_r, from_w = os.pipe()  # Chromium writes fd 4, we read

        def fds():
            # via fresh copies: a pipe may already be 3 or 4, and dup2 onto
            # itself would keep its close-on-exec flag
            r, w = os.dup(to_r), os.dup(from_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--disable-extensions", "--disable-background-networking", "--remote-debugging-pipe",
                "--user-data-dir=" + self.dir.name, "--window-size=1400,1000", "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=fds, close_fds=False, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self.w = os.fdopen(to_w, "wb", buffering=0)
        self.r = os.fdopen(from_r, "rb", buffering=0)
        self.buf = b""
        self.next_id = 0

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.w.write(json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self.buf:
                chunk = self.r.read(65536)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"]))
                return reply.get("result", {})

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.dir.cleanup()


def evaluate(b, session, expr):
    res = b.send("Runtime.evaluate", {"expression": expr, "returnByValue": True}, session)
    if "exceptionDetails" in res:
        raise RuntimeError("script failed: %s" % res["exceptionDetails"])
    return res["result"].get("value")


def main():
    chromium, page, k, line = sys.argv[1], os.path.abspath(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    b = Browser(chromium)
    try:
        target = b.send("Target.createTarget", {"url": "file://" + page})["targetId"]
        s = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for _ in range(200):
            if evaluate(b, s, "location.protocol == 'file:' && document.readyState == 'complete'"):
                break
            time.sleep(0.05)
        sec = "document.getElementById('k%d')" % k
        out = {}
        # the summary table and the groups as loaded; a kernel in a closed,
        # deflated group is reached as a link reaches it: through the hash
        out["summary"] = evaluate(b, s, """Array.from(document.querySelectorAll('table.summary tr')).slice(1)
            .map(r => Array.from(r.cells).map(c => c.textContent))""")
        out["groups"] = evaluate(b, s, """Array.from(document.querySelectorAll('details.group')).map(d =>
            [d.id, d.open, !!d.querySelector(':scope>script.z'), d.querySelector('summary').textContent,
             d.querySelectorAll('section.kernel').length])""")
        out["inflated"] = False
        if not evaluate(b, s, sec + " !== null"):
            evaluate(b, s, "location.hash = 'k%d'" % k)
            for _ in range(200):
                if evaluate(b, s, sec + " !== null"):
                    out["inflated"] = True
                    break
                time.sleep(0.05)
        out["marks"] = evaluate(b, s, """Array.from(%s.querySelectorAll('tr.src[data-rules]')).map(r =>
            [+r.dataset.line, r.dataset.rules, Array.from(r.querySelectorAll('.b')).map(x => x.textContent)])""" % sec)
        out["spills"] = evaluate(b, s, """Array.from(%s.querySelectorAll('tr.src[data-ra]')).map(r =>
            [+r.dataset.line, r.dataset.ra, Array.from(r.querySelectorAll('.b.ra')).map(x => x.textContent),
             r.className])""" % sec)
        out["noline"] = evaluate(b, s, """(() => { const d = %s.querySelector('.ranoline');
            return d ? d.dataset.ra : null; })()""" % sec)
        out["regalloc"] = evaluate(b, s, """(() => { const d = %s.querySelector('dd.ra');
            return d ? d.textContent : null; })()""" % sec)
        out["nodes"] = evaluate(b, s, """Array.from(%s.querySelectorAll('svg g.node')).map(g =>
            [g.id, g.getAttribute('class'), g.querySelector('polygon,ellipse').getAttribute('fill')])""" % sec)
        visible = """Array.from(%s.querySelectorAll('.ptxgrp')).filter(g => g.offsetParent !== null)""" % sec
        out["before"] = evaluate(b, s, visible + ".length")
        row = "%s.querySelector('tr.src[data-line=\"%d\"]')" % (sec, line)
        rect = evaluate(b, s, """(() => { const r = %s; if (!r) return null; r.scrollIntoView({block: 'center'});
            const b = r.getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]; })()""" % row)
        if rect is None:
            out["click"] = None
        else:
            for t in ("mousePressed", "mouseReleased"):
                b.send("Input.dispatchMouseEvent", {"type": t, "x": rect[0], "y": rect[1], "button": "left",
                                                    "clickCount": 1}, s)
            out["click"] = evaluate(b, s, """(() => { const v = %s; const r = %s;
                return {visible: v.map(g => g.id), selected: r.classList.contains('sel'),
                        heading: v.length ? v[0].querySelector('h4').textContent : null,
                        rows: v.length ? Array.from(v[0].querySelectorAll('tr')).map(t =>
                          [+t.cells[0].textContent, t.cells[1].textContent,
                           Array.from(t.cells[2].querySelectorAll('i')).map(i => i.textContent),
                           Array.from(t.cells[2].querySelectorAll('.b.ra')).map(i => i.textContent)]) : []}; })()"""
                                    % (visible, row))
        print(json.dumps(out))
    finally:
        b.close()


if __name__ == "__main__":
    main()
