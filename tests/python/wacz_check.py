#!/usr/bin/env python3
"""Check a WACZ package with the `wacz` package's own validator and read what it holds.

    .venv/bin/python tests/python/wacz_check.py FILE.wacz

Runs `wacz validate -f FILE` (py-wacz 0.6.0: datapackage.json's wacz_version, every file listed
with its size and sha256, datapackage-digest.json's hash of datapackage.json), then checks what
that validator does not: every `archive/*` and `indexes/*.cdx.gz` entry is STORED (replay reads
them at offsets, so they must not be deflated), pages/pages.jsonl starts with its header line and
every page has `url` and an RFC 3339 `ts`, and index.idx's blocks lie inside index.cdx.gz and
hold the lines it names. Prints one JSON object: {"validate": the validator's last line,
"entries": {name: "stored"|"deflated"}, "pages": [{"url", "ts"}], "index_lines": N,
"datapackage": the parsed datapackage.json}. Exit 0 when every check passed, 1 otherwise (the
reason on stderr).
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # keep tests/python free of __pycache__

import gzip
import json
import re
import subprocess
import zipfile

from archive_common import venv_tool

TS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def fail(message: str) -> None:
    sys.exit(f"wacz_check: {message}")


def validate(path: str) -> str:
    proc = subprocess.run([venv_tool("wacz"), "validate", "-f", path], capture_output=True,
                          text=True, timeout=600, stdin=subprocess.DEVNULL)
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    if proc.returncode != 0:
        fail(f"wacz validate exit {proc.returncode}: {' | '.join(lines[-5:])}")
    return lines[-1] if lines else ""


def pages(z: zipfile.ZipFile) -> list[dict[str, str]]:
    lines = z.read("pages/pages.jsonl").decode("utf-8").splitlines()
    header = json.loads(lines[0])
    if header.get("format") != "json-pages-1.0":
        fail(f"pages.jsonl's first line is no header: {lines[0]}")
    out = []
    for line in lines[1:]:
        page = json.loads(line)
        if "url" not in page or not TS.match(page.get("ts", "")):
            fail(f"a page without url or RFC 3339 ts: {line}")
        out.append({"url": page["url"], "ts": page["ts"]})
    return out


def index_lines(z: zipfile.ZipFile) -> int:
    cdx = z.read("indexes/index.cdx.gz")
    idx = z.read("indexes/index.idx").decode("utf-8").splitlines()
    if not idx or not idx[0].startswith("!meta 0 "):
        fail("index.idx does not start with its !meta line")
    total = 0
    for line in idx[1:]:
        key, block = line.split(" {", 1)
        at = json.loads("{" + block)
        text = gzip.decompress(cdx[at["offset"]:at["offset"] + at["length"]]).decode("utf-8")
        if not text.startswith(key + " "):
            fail(f"the block at {at['offset']} does not start with {key!r}")
        total += len(text.splitlines())
    if total != len(gzip.decompress(cdx).decode("utf-8").splitlines()):
        fail("index.idx's blocks do not cover index.cdx.gz")
    return total


def main() -> int:
    if len(sys.argv) != 2:
        fail("usage: wacz_check.py FILE.wacz")
    path = sys.argv[1]
    last = validate(path)
    with zipfile.ZipFile(path) as z:
        entries = {}
        for info in z.infolist():
            stored = info.compress_type == zipfile.ZIP_STORED
            entries[info.filename] = "stored" if stored else "deflated"
            must_store = info.filename.startswith("archive/") or info.filename.endswith(".cdx.gz")
            if must_store and not stored:
                fail(f"{info.filename} is compressed; it must be STORED")
        report = {"validate": last, "entries": entries, "pages": pages(z),
                  "index_lines": index_lines(z),
                  "datapackage": json.loads(z.read("datapackage.json"))}
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
