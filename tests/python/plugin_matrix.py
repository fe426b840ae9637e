#!/usr/bin/env python3
"""Run every command of a plugins.toml on every file it applies to, the way the server does, and
report what each tool did. A check of the tool installation and of plugins.toml, and the source of
the table in tests/fixtures/crate-site/README.md.

    python3 tests/python/plugin_matrix.py [--plugins plugins.toml] [--site tests/fixtures/crate-site]
                                          [--json OUT] [--show FILE-GLOB]

Needs Python >= 3.11 (tomllib) and the tools of scripts/setup; xmllint checks XML outputs.
Like the server, it hands each tool a symlink named f000001.EXT in a private temporary folder:
  * runner "process":     one run per file, "{path}" -> the link's absolute path;
  * runner "jhove-batch": one run for all files of the entry, split per <repInfo uri="...">;
  * runner "fido-batch":  one run for all files of the entry, CSV lines split by the quoted path;
  * runner "exiftool":    one `exiftool -stay_open True -@ -` worker; per file the arguments after
                          the program name, then -execute<N>; the exit status comes from -echo4.
MIME types come from the extension, as the server's mime_guess table gives them for the fixtures.
Prints one line per (file, plugin entry): exit code, JHOVE status, output size, whether XML output
is well-formed, whether the output echoes the temporary folder, and the first stderr line.
Exit 0 when every run finished (whatever the tools said), 1 otherwise (timeout, missing tool).
"""

import argparse
import fnmatch
import hashlib
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET

# mime_guess 2.0.5's first type for the extensions used in the fixtures (and a few neighbours).
MIME = {
    "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif",
    "tif": "image/tiff", "tiff": "image/tiff", "jp2": "image/jp2", "jpx": "image/jpx",
    "svg": "image/svg+xml", "pdf": "application/pdf", "html": "text/html", "htm": "text/html",
    "xhtml": "application/xhtml+xml", "xml": "text/xml", "txt": "text/plain", "py": "text/plain",
    "md": "text/markdown", "wav": "audio/wav", "aif": "audio/aiff", "aiff": "audio/aiff",
    "mp3": "audio/mpeg", "mp4": "video/mp4", "json": "application/json", "csv": "text/csv",
}


def mime_of(path):
    ext = os.path.splitext(path)[1][1:].lower()
    return MIME.get(ext, "application/octet-stream")


def applies(patterns, mime):
    if isinstance(patterns, str):
        patterns = [patterns]
    return any(p == "*/*" or p == mime or (p.endswith("/*") and mime.split("/")[0] == p[:-2])
               for p in patterns)


def link_name(i, path):
    ext = os.path.splitext(path)[1][1:]
    ext = ext if ext.isascii() and ext.isalnum() else ""
    return f"f{i:06d}" + (f".{ext}" if ext else "")


def well_formed(data):
    if not data.strip():
        return False
    r = subprocess.run(["xmllint", "--noout", "-"], input=data, capture_output=True)
    return r.returncode == 0


def jhove_status(xml):
    m = re.search(rb"<status>([^<]*)</status>", xml)
    return m.group(1).decode() if m else ""


def run(argv, timeout):
    t = time.monotonic()
    try:
        r = subprocess.run(argv, capture_output=True, timeout=timeout, start_new_session=True)
        return r.returncode, r.stdout, r.stderr, time.monotonic() - t
    except subprocess.TimeoutExpired as e:
        return "timeout", e.stdout or b"", e.stderr or b"", time.monotonic() - t
    except FileNotFoundError:
        return "missing", b"", b"", 0.0


def split_jhove(xml, names):
    """Per file: (root start tag + its repInfo + root end tag), like the server's splitter."""
    out = {}
    root = re.match(rb"(?s)(.*?<jhove\b[^>]*>)", xml)
    for m in re.finditer(rb'(?s)<repInfo uri="([^"]*)">.*?</repInfo>', xml):
        uri = m.group(1).decode(errors="replace")
        for n in names:
            if uri.endswith(n):
                out[n] = (root.group(1) if root else b"") + m.group(0) + b"</jhove>"
    return out


def split_lines(text, names):
    out = {n: b"" for n in names}
    for line in text.splitlines(keepends=True):
        for n in names:
            if n.encode() in line:
                out[n] += line
    return out


class ExifToolWorker:
    def __init__(self, program):
        self.p = subprocess.Popen([program, "-stay_open", "True", "-@", "-"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        self.n = 0

    def _read_until(self, fd, marker, buf, timeout):
        end = time.monotonic() + timeout
        while marker not in buf:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError
            buf += chunk
        return buf

    def ask(self, args, timeout):
        self.n += 1
        n = self.n
        msg = f"-echo4\n{{done{n} ${{status}}}}\n" + "".join(a + "\n" for a in args) + f"-execute{n}\n"
        t = time.monotonic()
        self.p.stdin.write(msg.encode())
        self.p.stdin.flush()
        try:
            out = self._read_until(self.p.stdout.fileno(), f"{{ready{n}}}\n".encode(), b"", timeout)
            err = self._read_until(self.p.stderr.fileno(), f"{{done{n} ".encode(), b"", timeout)
            err = self._read_until(self.p.stderr.fileno(), b"}\n", err, timeout)
        except (TimeoutError, EOFError):
            return "timeout", b"", b"", time.monotonic() - t
        out = out[: out.rindex(f"{{ready{n}}}\n".encode())]
        i = err.rindex(f"{{done{n} ".encode())
        code = int(err[i + len(f"{{done{n} "):].split(b"}")[0])
        return code, out, err[:i], time.monotonic() - t

    def close(self):
        try:
            self.p.stdin.write(b"-stay_open\nFalse\n")
            self.p.stdin.flush()
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()


def describe(entry):
    if "builtin" in entry:
        return f"{entry['label']}(builtin {entry['builtin']})"
    cmd = entry["command"]
    mod = cmd[cmd.index("-m") + 1] if "-m" in cmd else ""
    return entry["label"] + (f"[{mod}]" if mod else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--plugins", default=os.path.join(root, "plugins.toml"))
    ap.add_argument("--site", default=os.path.join(root, "tests", "fixtures", "crate-site"))
    ap.add_argument("--json", help="write every result (outputs included) to this file")
    ap.add_argument("--show", help="print the full outputs for files matching this glob")
    a = ap.parse_args()

    with open(a.plugins, "rb") as f:
        conf = tomllib.load(f)
    settings = conf.get("settings", {})
    default_timeout = settings.get("timeout-secs", 30)
    files = sorted(os.path.relpath(os.path.join(d, n), a.site)
                   for d, _, ns in os.walk(a.site) for n in ns if not n.startswith("."))
    results, problems = [], 0
    workers = {}
    for entry in conf.get("plugin", []):
        todo = [f for f in files if applies(entry["mime"], mime_of(f))]
        big = entry.get("max-input-bytes")
        skipped = [f for f in todo if big is not None and os.path.getsize(os.path.join(a.site, f)) > big]
        todo = [f for f in todo if f not in skipped]
        for f in skipped:
            results.append(dict(file=f, plugin=describe(entry), rc="skipped"))
        if not todo:
            continue
        if "builtin" in entry:
            for f in todo:
                with open(os.path.join(a.site, f), "rb") as fh:
                    digest = hashlib.new(entry["builtin"], fh.read()).hexdigest()
                results.append(dict(file=f, plugin=describe(entry), rc=0, stdout=digest.encode()))
            continue
        timeout = entry.get("timeout-secs", default_timeout)
        runner = entry.get("runner", "process")
        tmp = tempfile.mkdtemp(prefix="plugin-matrix-")
        try:
            names = {}
            for i, f in enumerate(todo, 1):
                names[f] = link_name(i, f)
                os.symlink(os.path.abspath(os.path.join(a.site, f)), os.path.join(tmp, names[f]))
            per_file = {}
            if runner in ("jhove-batch", "fido-batch"):
                argv = []
                for x in entry["command"]:
                    argv += [os.path.join(tmp, names[f]) for f in todo] if x == "{paths}" else [x]
                rc, out, err, dt = run(argv, timeout * min(len(todo), 8))
                if runner == "jhove-batch":
                    parts = split_jhove(out, list(names.values()))
                    whole_ok = well_formed(out)
                else:
                    parts = split_lines(out, list(names.values()))
                    whole_ok = None
                errs = split_lines(err, list(names.values()))
                for f in todo:
                    per_file[f] = (rc, parts.get(names[f], b""), errs.get(names[f], b""), dt / len(todo),
                                   dict(batch_rc=rc, batch_well_formed=whole_ok, batch_stderr=err))
            elif runner == "exiftool":
                prog = entry["command"][0]
                if shutil.which(prog) is None:
                    for f in todo:
                        per_file[f] = ("missing", b"", b"", 0.0, {})
                else:
                    w = workers.setdefault(prog, ExifToolWorker(prog))
                    for f in todo:
                        args = [os.path.join(tmp, names[f]) if x == "{path}" else x for x in entry["command"][1:]]
                        per_file[f] = w.ask(args, timeout) + ({},)
            else:
                for f in todo:
                    argv = [os.path.join(tmp, names[f]) if x == "{path}" else x for x in entry["command"]]
                    per_file[f] = run(argv, timeout) + ({},)
            for f in todo:
                rc, out, err, dt, extra = per_file[f]
                res = dict(file=f, plugin=describe(entry), rc=rc, stdout=out, stderr=err, secs=round(dt, 3),
                           echoes_tmp=tmp.encode() in out, echoes_tmp_stderr=tmp.encode() in err,
                           echoes_real=os.path.abspath(a.site).encode() in out + err, **extra)
                if entry.get("output") == "xml":
                    res["well_formed"] = well_formed(out)
                if entry["label"] == "jhove":
                    res["jhove_status"] = jhove_status(out)
                if rc in ("timeout", "missing"):
                    problems += 1
                results.append(res)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    for w in workers.values():
        w.close()

    results.sort(key=lambda r: (r["file"], r["plugin"]))
    for r in results:
        flags = []
        if "well_formed" in r:
            flags.append("xml-ok" if r["well_formed"] else "XML-NOT-WELL-FORMED")
        if r.get("echoes_tmp"):
            flags.append("echoes-tmp")
        if r.get("echoes_tmp_stderr"):
            flags.append("stderr-echoes-tmp")
        if r.get("echoes_real"):
            flags.append("ECHOES-REAL-PATH")
        status = r.get("jhove_status", "")
        first_err = (r.get("stderr") or b"").decode(errors="replace").strip().splitlines()[:1]
        print(f"{r['file']:<16} {r['plugin']:<20} rc={str(r['rc']):<7} {len(r.get('stdout') or b''):>6} B "
              f"{status:<24} {' '.join(flags):<24} {('stderr: ' + first_err[0][:70]) if first_err else ''}")
        if a.show and fnmatch.fnmatch(r["file"], a.show):
            print((r.get("stdout") or b"").decode(errors="replace"))
    if a.json:
        def enc(v):
            return v.decode(errors="replace") if isinstance(v, bytes) else v
        with open(a.json, "w") as f:
            json.dump([{k: enc(v) for k, v in r.items()} for r in results], f, indent=1)
    print(f"{len(results)} runs, {problems} problems (timeout or missing tool)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
