#!/usr/bin/env python3
"""Verify a harvested archive (WARC 1.1 files + CDXJ index) with the peers warcio and cdxj-indexer.

    .venv/bin/python tests/python/archive_check.py ARCHIVE [--json]

ARCHIVE is laid out as archive_common.py describes (ARCHIVE/warcs/*.warc.gz, ARCHIVE/index.cdxj).
Checks, each reported as `ok` or `FAIL` with details:

  layout    warcs/ holds at least one *.warc.gz and no *.open file is left (files are
            written as NAME.warc.gz.open and renamed on close);
            index.cdxj exists.
  check     `warcio check -v` on every file exits 0 and reports no digest failure; a record with
            no digest at all ("no digest to check") fails too, since the project writes both
            digests on every record (warcio check passes a record without them). Revisits are "present but not checked".
  records   warcio's ArchiveIterator reads every record of every file to its end (each block read
            in full); the first record is a warcinfo whose WARC-Filename is the file's name; every
            record starts with WARC/1.1.
  members   `warcio index` lists every record, warc-fields metadata included (which CDXJ skips):
            its (offset, length) pairs tile the file from 0 to its size with no gap, agree with the
            in-process walk, and each slice is exactly one gzip member holding one record
            (Annex D; this is what pywb's random access relies on).
  index     index.cdxj parses (SURT, 14-digit timestamp, JSON object), is sorted bytewise, uses
            one digest form, and names files that exist in warcs/; and `cdxj-indexer` on all files
            yields the same multiset of (SURT, timestamp, url, mime, digest without `sha1:`,
            offset, length, file name). cdxj-indexer is the oracle because it writes pywb's CDXJ
            dialect (same record selection, mime and key rules); `warcio index` only lists records.
            Each index line must also point at a record of its url and timestamp in warcio's list.

Exit 0 when every check passed, 1 otherwise, 2 on usage errors. With --json the report goes to
stderr and stdout gets one JSON object: {"ok", "failures": [...], "files": {NAME: {"bytes",
"records", "complete", "types": {TYPE: N}, "warcio_check": {"digest_pass", "not_checked", …}}},
"types": {TYPE: N} over all files, "index": {"lines", "oracle_lines", "digest_form",
"filenames", "missing", "extra"}}. The index's `status` and any extra JSON fields are not
compared (the harvester writes no HTTP records).
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # keep tests/python free of __pycache__

import argparse
import json
import os
import re
import subprocess
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from warcio.archiveiterator import ArchiveIterator

from archive_common import INDEX, WARC_DIR, bare_digest, venv_tool, warc_files, warc_timestamp

# Per-line key of the comparison with cdxj-indexer.
IndexKey = tuple[str, str, str, str, str, str, str, str]


@dataclass
class Report:
    """Accumulates failures and the human-readable report."""

    out: Any
    failures: list[str] = field(default_factory=list)

    def say(self, text: str) -> None:
        print(text, file=self.out)

    def fail(self, what: str, detail: str) -> None:
        self.failures.append(f"{what}: {detail}")
        self.say(f"  FAIL {what}: {detail}")

    def ok(self, what: str, detail: str = "") -> None:
        self.say(f"  ok   {what}" + (f": {detail}" if detail else ""))


@dataclass
class Record:
    """One record as the in-process walk saw it."""

    type: str
    uri: str | None
    date: str
    content_type: str | None
    offset: int
    length: int


def counts(items: Iterable[str]) -> str:
    """`a 2, b 1` for the items, sorted."""
    return ", ".join(f"{k} {n}" for k, n in sorted(Counter(items).items()))


def clip(text: str, limit: int = 200) -> str:
    """One printable line of at most `limit` characters (tool errors may quote binary data)."""
    flat = "".join(c if c.isprintable() else "?" for c in " ".join(text.split()))
    return flat if len(flat) <= limit else flat[:limit] + "…"


def run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=3600)


def check_layout(archive: Path, rep: Report) -> list[Path]:
    rep.say("layout")
    warcs = warc_files(archive)
    if not (archive / WARC_DIR).is_dir():
        rep.fail("layout", f"{archive / WARC_DIR} is not a directory")
    elif not warcs:
        rep.fail("layout", f"no *.warc.gz in {archive / WARC_DIR}")
    else:
        rep.ok("layout", f"{len(warcs)} WARC file(s)")
    leftovers = sorted(str(p.relative_to(archive)) for p in archive.rglob("*.open"))
    if leftovers:
        rep.fail("open files", f"{', '.join(leftovers)} (a writer did not close its file)")
    if not (archive / INDEX).is_file():
        rep.fail("layout", f"{archive / INDEX} is missing")
    return warcs


# `warcio check -v` prints per record "  offset N WARC-Record-ID <id> TYPE", then indented
# verdict lines: "digest pass", "digest present but not checked (revisit)", "no digest to check",
# or the problems ("payload digest failed: …", "block digest failed: …").
CHECK_RECORD = re.compile(r"^\s+offset (\d+) WARC-Record-ID (\S*) (\S+)$")


def check_digests(warc: Path, rep: Report) -> dict[str, int]:
    proc = run([venv_tool("warcio"), "check", "-v", str(warc)])
    counts = Counter[str]()
    problems: list[str] = []
    where = ""
    quoting = False  # inside an exception message that quotes the file's bytes
    for line in proc.stdout.splitlines():
        if quoting:
            quoting = line.strip() != "skipping rest of file"
            continue
        if "saw exception" in line:
            counts["exception"] += 1
            problems.append(clip(line.strip()))
            quoting = True
            continue
        m = CHECK_RECORD.match(line)
        if m:
            where = f"offset {m.group(1)} ({m.group(3)})"
            continue
        text = line.strip()
        if not text or line == str(warc):
            continue
        if text == "digest pass":
            counts["digest_pass"] += 1
        elif text.startswith("digest present but not checked"):
            counts["not_checked"] += 1
        elif text == "no digest to check":
            counts["no_digest"] += 1
            problems.append(f"{where}: no digest to check")
        else:
            counts["failed"] += 1
            problems.append(clip(f"{where}: {text}" if where else text))
    summary = ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "no records"
    if proc.returncode != 0 or problems:
        tail = [clip(proc.stderr.strip().splitlines()[-1])] if proc.stderr.strip() else []
        shown = problems[:5] + tail
        rep.fail(f"warcio check {warc.name}",
                 f"exit {proc.returncode}; {summary}; " + " | ".join(shown))
    else:
        rep.ok(f"warcio check {warc.name}", summary)
    return dict(counts)


def walk_records(warc: Path, rep: Report) -> tuple[list[Record], bool]:
    """Read every record to its end with warcio: the records read, and whether that was all."""
    records: list[Record] = []
    size = warc.stat().st_size
    try:
        with warc.open("rb") as fh:
            it = ArchiveIterator(fh, check_digests=False)
            for rec in it:
                stream = rec.content_stream()
                while stream.read(1 << 20):
                    pass
                h = rec.rec_headers
                records.append(Record(
                    type=rec.rec_type,
                    uri=h.get_header("WARC-Target-URI"),
                    date=h.get_header("WARC-Date") or "",
                    content_type=h.get_header("Content-Type"),
                    offset=it.get_record_offset(),
                    length=it.get_record_length(),
                ))
                if h.protocol != "WARC/1.1":
                    rep.fail(f"records {warc.name}",
                             f"record at offset {it.get_record_offset()} is {h.protocol}")
                if len(records) == 1:
                    name = h.get_header("WARC-Filename")
                    if rec.rec_type != "warcinfo":
                        rep.fail(f"records {warc.name}", f"first record is {rec.rec_type}")
                    elif name != warc.name:
                        rep.fail(f"records {warc.name}", f"warcinfo WARC-Filename is {name!r}")
    except Exception as e:  # noqa: BLE001 - any reader error means an incomplete file
        at = records[-1].offset + records[-1].length if records else 0
        rep.fail(f"records {warc.name}",
                 f"warcio stopped after {len(records)} record(s), near offset {at}: "
                 + clip(f"{type(e).__name__}: {e}"))
        return records, False
    end = records[-1].offset + records[-1].length if records else 0
    if end != size:
        rep.fail(f"records {warc.name}", f"records end at {end}, file has {size} bytes")
        return records, False
    rep.ok(f"records {warc.name}",
           f"{len(records)} records read to the end ({counts(r.type for r in records)})")
    return records, True


def warcio_index(warc: Path, rep: Report) -> list[dict[str, str]]:
    fields = "warc-type,warc-target-uri,warc-date,offset,length,filename"
    proc = run([venv_tool("warcio"), "index", "-f", fields, str(warc)])
    if proc.returncode != 0:
        err = proc.stderr.strip().splitlines()[-1:] or [""]
        rep.fail(f"warcio index {warc.name}", f"exit {proc.returncode}: {clip(err[0])}")
        return []
    return [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]


def single_member(data: bytes) -> str | None:
    """Why `data` is not exactly one gzip member holding one WARC record, or None."""
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = d.decompress(data) + d.flush()
    except zlib.error as e:
        return f"gzip error: {e}"
    if not d.eof:
        return "gzip member is truncated"
    if d.unused_data:
        return f"{len(d.unused_data)} bytes after the gzip member"
    if not out.startswith(b"WARC/"):
        return "member does not start with a WARC version line"
    if not out.endswith(b"\r\n\r\n"):
        return "record does not end with CRLF CRLF"
    return None


def check_members(warc: Path, rows: list[dict[str, str]], walked: list[Record] | None,
                  rep: Report) -> None:
    what = f"members {warc.name}"
    spans = [(int(r["offset"]), int(r["length"])) for r in rows]
    if walked is not None and spans != [(r.offset, r.length) for r in walked]:
        rep.fail(what, "warcio index and the record walk disagree on offsets/lengths")
        return
    pos, size = 0, warc.stat().st_size
    bad = 0
    with warc.open("rb") as fh:
        for (offset, length), row in zip(spans, rows):
            if offset != pos:
                rep.fail(what, f"record at {offset} does not follow the previous one, "
                         f"which ends at {pos}")
                return
            fh.seek(offset)
            why = single_member(fh.read(length))
            if why:
                bad += 1
                if bad <= 5:
                    rep.fail(what, f"{row.get('warc-type')} at offset {offset}: {why}")
            pos = offset + length
    if pos != size:
        rep.fail(what, f"indexed records end at {pos}, file has {size} bytes")
    elif not bad:
        rep.ok(what, f"{len(spans)} records, each one gzip member, contiguous to {size} bytes")


def index_key(surt: str, ts: str, obj: dict[str, Any]) -> IndexKey:
    """What the comparison looks at; the file name without a directory, the digest unlabelled."""
    def s(k: str) -> str:
        v = obj.get(k)
        return "" if v is None else str(v)
    return (surt, ts, s("url"), s("mime"), bare_digest(s("digest")), s("offset"), s("length"),
            os.path.basename(s("filename")))


def parse_index(path: Path, rep: Report) -> tuple[list[IndexKey], list[dict[str, Any]]] | None:
    try:
        raw = path.read_bytes()
    except OSError as e:
        rep.fail("index", f"cannot read {path}: {e}")
        return None
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        rep.fail("index", "last line has no newline")
    keys: list[IndexKey] = []
    objs: list[dict[str, Any]] = []
    for no, line in enumerate(lines, 1):
        parts = line.decode("utf-8", "replace").split(" ", 2)
        try:
            if len(parts) != 3:
                raise ValueError("not 'SURT TIMESTAMP JSON'")
            surt, ts, js = parts
            if not re.fullmatch(r"\d{14}", ts):
                raise ValueError(f"timestamp {ts!r} is not 14 digits")
            obj = json.loads(js)
            if not isinstance(obj, dict):
                raise ValueError("JSON block is not an object")
        except ValueError as e:
            rep.fail("index", f"line {no}: {e}")
            continue
        keys.append(index_key(surt, ts, obj))
        objs.append(obj)
    if lines != sorted(lines):
        first = next(i for i, (a, b) in enumerate(zip(lines, lines[1:])) if a > b)
        rep.fail("index", f"not sorted bytewise (LC_ALL=C): line {first + 2} sorts before "
                 f"line {first + 1}")
    return keys, objs


def check_index(archive: Path, warcs: list[Path], rows: list[dict[str, str]],
                rep: Report) -> dict[str, Any]:
    rep.say("index")
    result: dict[str, Any] = {}
    parsed = parse_index(archive / INDEX, rep)
    if parsed is None:
        return result
    ours, objs = parsed
    result["lines"] = len(ours)

    forms = {("prefixed" if str(o.get("digest", "")).lower().startswith("sha1:") else "bare")
             for o in objs if o.get("digest")}
    result["digest_form"] = "/".join(sorted(forms)) or "none"
    if len(forms) > 1:
        rep.fail("index", "mixes `sha1:`-prefixed and bare digests "
                 "(an index uses one form: pywb's revisit lookup expects one)")
    names = {str(o.get("filename", "")) for o in objs}
    for name in sorted(names):
        if not ((archive / WARC_DIR / name).is_file() or (archive / name).is_file()):
            rep.fail("index", f"filename {name!r} is neither in {WARC_DIR}/ nor in the "
                     "archive root")
    result["filenames"] = sorted(names)
    extra_keys = sorted({k for o in objs for k in o} - {"url", "mime", "status", "digest",
                                                        "length", "offset", "filename"})
    if extra_keys:
        rep.say(f"  note index fields beyond pywb's defaults: {', '.join(extra_keys)}")

    if not warcs:
        return result
    proc = run([venv_tool("cdxj-indexer"), *(w.name for w in warcs)], cwd=archive / WARC_DIR)
    if proc.returncode != 0:
        err = proc.stderr.strip().splitlines()[-1:] or [""]
        rep.fail("cdxj-indexer", f"exit {proc.returncode}: {clip(err[0])}")
        return result
    oracle = []
    for line in proc.stdout.splitlines():
        surt, ts, js = line.split(" ", 2)
        oracle.append(index_key(surt, ts, json.loads(js)))
    result["oracle_lines"] = len(oracle)
    missing = Counter(oracle) - Counter(ours)
    extra = Counter(ours) - Counter(oracle)
    result["missing"] = [list(k) for k in sorted(missing.elements())]
    result["extra"] = [list(k) for k in sorted(extra.elements())]
    for label, diff in (("missing from index.cdxj", missing),
                        ("not in cdxj-indexer's output", extra)):
        for k in sorted(diff.elements())[:10]:
            rep.fail("index vs cdxj-indexer", f"{label}: {' '.join(k[:2])} {json.dumps(k[2:])}")
        if sum(diff.values()) > 10:
            rep.say(f"  … {sum(diff.values()) - 10} more {label}")
    if not missing and not extra:
        rep.ok("index vs cdxj-indexer", f"{len(ours)} lines agree "
               "(key, timestamp, url, mime, digest, offset, length, file name)")

    # Every line must point at a record of its own url and time in warcio's record list.
    records = {(os.path.basename(r["filename"]), r["offset"]): r for r in rows}
    stray = 0
    for k in ours:
        r = records.get((k[7], k[5]))
        ok = (r is not None and r.get("length") == k[6] and r.get("warc-target-uri") == k[2]
              and warc_timestamp(r.get("warc-date", "")) == k[1])
        if not ok:
            stray += 1
            if stray <= 5:
                rep.fail("index vs warcio index",
                         f"{k[2]} {k[1]} -> {k[7]}@{k[5]}+{k[6]} is not such a record")
    if not stray and rows:
        rep.ok("index vs warcio index", "every line points at a record of its url and timestamp")
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("archive", type=Path, help="archive directory (warcs/ and index.cdxj)")
    ap.add_argument("--json", action="store_true",
                    help="print a JSON summary on stdout (the report goes to stderr)")
    args = ap.parse_args()
    archive: Path = args.archive
    if not archive.is_dir():
        ap.error(f"{archive} is not a directory")
    rep = Report(sys.stderr if args.json else sys.stdout)
    rep.say(f"archive_check {archive}")

    warcs = check_layout(archive, rep)
    files: dict[str, Any] = {}
    rows_all: list[dict[str, str]] = []
    for warc in warcs:
        rep.say(warc.name)
        digests = check_digests(warc, rep)
        walked, complete = walk_records(warc, rep)
        rows = warcio_index(warc, rep)
        rows_all += rows
        if rows:
            check_members(warc, rows, walked if complete else None, rep)
        types = Counter(r.type for r in walked)
        files[warc.name] = {"bytes": warc.stat().st_size, "records": sum(types.values()),
                            "complete": complete, "types": dict(sorted(types.items())),
                            "warcio_check": digests}
    index = check_index(archive, warcs, rows_all, rep) if (archive / INDEX).is_file() else {}

    totals = sum((Counter(f["types"]) for f in files.values()), Counter())
    ok = not rep.failures
    rep.say(f"archive_check: {sum(totals.values())} records in {len(files)} file(s) "
            f"({counts(totals.elements())}), "
            f"{index.get('lines', 0)} index lines: "
            + ("ok" if ok else f"{len(rep.failures)} failure(s)"))
    if args.json:
        json.dump({"archive": str(archive), "ok": ok, "failures": rep.failures, "files": files,
                   "types": dict(sorted(totals.items())), "index": index}, sys.stdout, indent=1)
        print()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
