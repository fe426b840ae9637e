#!/usr/bin/env python3
"""modoai-siegfried: PRONOM format identification by Siegfried, for modoai's oai_crate plugins.

Siegfried's engine and its signature file come embedded in the `pygfried` package, which has no
command line of its own and no way to read paths from stdin; this program is that command line.
`scripts/setup` installs it as `.venv-tools/bin/modoai-siegfried` (beside a pinned pygfried) and
links it onto PATH. The signatures are loaded once per process (`pygfried.Scanner`).

    modoai-siegfried --version   one line: the engine's version, its signature file and the
                                 PRONOM files it was built from, pygfried's version
    modoai-siegfried PATH...     one answer line per PATH, in order; exit 0
    modoai-siegfried --stdin     a resident worker: batches of paths on stdin, answers on stdout

An answer is Siegfried's own JSON document for one file (what `sf -json FILE` writes, without its
volatile `scandate`): the engine's version, the signature file, when it was made, the PRONOM files
it was built from (`identifiers`), and `files`: that one file with its size, mtime, `errors` and
`matches` (namespace, PUID, format name, version, MIME type, class, basis, warning). It is one line:
JSON escapes every control character, a newline in a file name included.

The --stdin protocol (docs/plugins.md, "Tool facts"). A batch is its paths, each followed by a NUL
byte, then one more NUL byte (an empty path, which no file has); paths are bytes, so a name with
newlines or bytes that are not UTF-8 cannot break the framing. The answer is one line per path,
in order, then the line `{"end":N}`, N counting the batches from 1: an end marker no answer can be
mistaken for, since every answer starts with `{"siegfried":`. Anything else the process writes (a
Python warning, a Go panic) is not in that form.

Each file is opened here first (non-blocking, so a FIFO cannot hold the worker) and checked to be
a regular file; Siegfried then reads it through /proc/self/fd, by a link in a private folder that
keeps only the file's extension. So a file replaced after the check is never read in its place,
one that disappears is still read whole, and a name that is not UTF-8 (which pygfried refuses)
is identified like any other. A file that cannot be identified gets an answer whose `errors` says
why and whose `matches` is empty.
"""

import datetime
import json
import os
import stat
import sys
import tempfile
from importlib.metadata import version as package_version

import pygfried

# What a file that is not regular is called in its answer.
KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
# Bytes read from stdin at once.
CHUNK = 64 * 1024


class Identifier:
    """One loaded signature set, and the header every answer starts with."""

    def __init__(self):
        self.scanner = pygfried.Scanner()
        empty = self.scanner.identify_many([])
        self.header = {k: empty[k] for k in ("siegfried", "signature", "created", "identifiers")}
        self.folder = tempfile.TemporaryDirectory(prefix="modoai-siegfried-")
        self.links = 0

    def version(self):
        """The engine, its signature file, the PRONOM files it holds, pygfried: one line."""
        h = self.header
        sources = "; ".join(f"{i['name']} {i['details']}" for i in h["identifiers"])
        return (
            f"siegfried {h['siegfried']}, {h['signature']} of {h['created']} ({sources}),"
            f" pygfried {package_version('pygfried')}"
        )

    def answers(self, paths):
        """One answer line (bytes, newline included) per path of `paths` (bytes), in order."""
        opened = [self.open(p) for p in paths]
        try:
            found = self.identify([o["link"] for o in opened if "link" in o])
            return [self.answer(o, found) for o in opened]
        finally:
            for o in opened:
                if "fd" in o:
                    os.close(o["fd"])
                if "link" in o:
                    os.unlink(o["link"])

    def open(self, path):
        """The file at `path` opened and linked for Siegfried, or why it cannot be."""
        name = path.decode("utf-8", "replace")
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        except OSError as e:
            return {"name": name, "error": f"open: {e.strerror.lower()}"}
        opened = {"name": name, "fd": fd, "stat": os.fstat(fd)}
        mode = opened["stat"].st_mode
        if not stat.S_ISREG(mode):
            kind = next((k for test, k in KINDS if test(mode)), "not a file")
            opened["error"] = f"not a regular file: {kind}"
            return opened
        self.links += 1
        ext = os.path.splitext(os.path.basename(path))[1].decode("utf-8", "replace")
        link = os.path.join(self.folder.name, f"{self.links}{ext}")
        os.symlink(f"/proc/self/fd/{fd}", link)
        opened["link"] = link
        return opened

    def identify(self, links):
        """Siegfried's entry of each of `links`, by link; a batch that fails is tried file by file."""
        if not links:
            return {}
        try:
            files = self.scanner.identify_many(links)["files"]
        except pygfried.GoError:
            files = []
            for link in links:
                try:
                    files.extend(self.scanner.identify_many([link])["files"])
                except pygfried.GoError as e:
                    files.append({"filename": link, "errors": f"siegfried: {e}", "matches": []})
        return {f["filename"]: f for f in files}

    def answer(self, opened, found):
        """The answer line of one opened file."""
        st = opened.get("stat")
        entry = found.get(opened.get("link")) or {
            "filename": "",
            "filesize": st.st_size if st else 0,
            "modified": modified(st),
            "errors": opened.get("error", "siegfried gave no answer"),
            "matches": [],
        }
        entry = dict(entry, filename=opened["name"])
        doc = dict(self.header, files=[entry])
        return (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def modified(st):
    """An mtime as Siegfried writes it (UTC, seconds); Go's zero time when there is none."""
    if st is None:
        return "0001-01-01T00:00:00Z"
    t = datetime.datetime.fromtimestamp(st.st_mtime, datetime.timezone.utc)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def serve(identifier):
    """The --stdin loop: a batch at a time, until stdin ends."""
    out = sys.stdout.buffer
    pending, paths, batches = b"", [], 0
    while True:
        chunk = os.read(0, CHUNK)
        if not chunk:
            return
        pending += chunk
        *complete, pending = pending.split(b"\0")
        for path in complete:
            if path:
                paths.append(path)
                continue
            batches += 1
            out.writelines(identifier.answers(paths))
            out.write(b'{"end":%d}\n' % batches)
            out.flush()
            paths = []


def main(argv):
    if argv[1:] in (["--version"], ["-v"]):
        print(Identifier().version())
        return 0
    if argv[1:] == ["--stdin"]:
        serve(Identifier())
        return 0
    paths = argv[2:] if argv[1:2] == ["--"] else argv[1:]
    if not paths or argv[1:2] in (["-h"], ["--help"]):
        print(__doc__.split("\n\n")[2], file=sys.stderr)
        return 2
    sys.stdout.buffer.writelines(Identifier().answers([os.fsencode(p) for p in paths]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
