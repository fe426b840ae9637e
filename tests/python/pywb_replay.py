#!/usr/bin/env python3
"""Replay a harvested archive with pywb and compare what it serves with the original files.

    .venv/bin/python tests/python/pywb_replay.py ARCHIVE --expect URL=LOCALFILE [--expect …]
                     [--revisit URL …] [--own-index | --wacz FILE] [--json] [--keep DIR]

Builds a pywb collection in a temporary directory (`wb-manager init c`, `wb-manager add c` with
every ARCHIVE/warcs/*.warc.gz, so pywb indexes the WARCs itself), starts `wayback` on 127.0.0.1 on
a free port, waits until it answers, and then:

  --expect URL=FILE  fetches the URL's latest capture (from pywb's CDX API) through the identity
                     replay /c/<timestamp>id_/<URL> and checks: HTTP 200, the body equals FILE
                     byte for byte, Content-Type equals the Content-Type of the WARC record that
                     holds the payload (for a revisit: the original it refers to, resolved
                     locally with warcio), and Memento-Datetime is the capture's timestamp.
  --revisit URL      pywb's CDX API (/c/cdx?url=URL&output=json) lists a warc/revisit capture for
                     URL; replaying that capture returns 200 with Memento-Datetime = the revisit's
                     timestamp and a body whose SHA-1 is the revisit's payload digest (and equals
                     the --expect file when the URL has one).
  --own-index        serve ARCHIVE/index.cdxj instead of pywb's own index (the WARCs are linked
                     under the index's `filename` values), to check that pywb can use our index.
  --wacz FILE        build the collection from a WACZ package of ARCHIVE instead
                     (`wb-manager add --unpack-wacz c FILE`: pywb takes the package's WARCs and its
                     indexes/index.cdx.gz, renames the WARCs and rewrites the index's `filename`
                     values), to check that the package replays; ARCHIVE still gives the records'
                     Content-Types.

Prints one line per check (`ok` / `MISMATCH` with sizes and the first differing offset), then a
summary; with --json a JSON object on stdout instead ({"ok", "startup_seconds", "port",
"results": [{"kind", "url", "ok", "timestamp", "problems", "status", "served_bytes",
"content_type", "memento", …}]}) and the report on stderr. Exit 0 when everything matched, 1 on
any mismatch, 2 when pywb could not be set up or started. wayback runs in its own process
group, killed at the end, also on errors and on SIGINT/SIGTERM.

pywb 2.10.0 quirks met while writing this (the CDXJ facts behind them: docs/archivists.md, Formats):
  * Records at the same URL and 14-digit timestamp share one CDXJ key + timestamp and pywb
    replays the line that sorts first, even in id_ mode. The lines then differ first in their
    `mime` value, so a `metadata` record typed application/xml under the file's own URL and
    WARC-Date shadows the file's `resource` record exactly when the file's MIME type sorts after
    "application/xml" (text/plain, application/zip, image/jpeg: shadowed; application/pdf,
    application/json: not), whatever the order in the WARC. warc-fields metadata is not indexed
    (pywb and cdxj-indexer skip records typed application/warc-fields), so it is harmless.
  * id_ replay of a `resource` record returns the block as is with the record's Content-Type
    verbatim (parameters such as `; charset=utf-8` kept), no HTTP headers to strip; an empty
    block replays as a 200 with Content-Length 0.
  * A timestamp that is not exact is not redirected (redirect_to_exact is off by default): pywb
    serves the closest capture with a Content-Location header, so Memento-Datetime tells which
    capture was replayed.
  * Every revisit, same-URL ones included, is resolved through its WARC-Refers-To-Target-URI
    (required), WARC-Refers-To-Date (else the revisit's own timestamp) and the digest, as a CDX
    query that skips warc/revisit lines; a revisit at another URL than its original replays too.
    A revisit without WARC-Refers-To-Target-URI does not fail: pywb silently falls back to the
    next closest capture of the URL (the original, with the original's Memento-Datetime), hence
    the Memento-Datetime check.
  * A revisit of an empty payload (digest 3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ, pywb's EMPTY_DIGEST)
    whose original is a `resource` record fails with HTTP 500 when the index holds bare digests
    (wb-manager's own index): pywb then replays the revisit record itself, finds no HTTP headers
    and raises AttributeError ('NoneType' … 'get_statuscode'). With `sha1:`-prefixed digests (our
    index, cdxj-indexer) the shortcut does not match and the original is looked up and replayed.
    So: write a plain resource record, not a revisit, when an empty file is harvested again.
  * pywb resolved revisits from our index whether its digests carry the `sha1:` prefix
    (cdxj-indexer) or not (pywb's own indexer), as long as one index uses one form.
  * wayback reads ./config.yaml and ./collections/ from its working directory, so it runs inside
    the temporary directory; `wb-manager add` copies the WARCs.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True  # keep tests/python free of __pycache__

import argparse
import email.utils
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from warcio.archiveiterator import ArchiveIterator

from archive_common import (INDEX, WARC_DIR, bare_digest, sha1_base32, venv_tool, warc_files,
                            warc_timestamp)

COLL = "c"
START_TIMEOUT = 60.0
# Characters left as they are when a URL goes into the replay path: pywb reads the rest of the
# path plus the query as the archived URL, so only what is not legal in a request line is escaped.
URL_SAFE = ":/?&=%#;+,@!$'()*~[]"
# wayback listens on loopback: never send its requests through an http_proxy from the environment.
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class SetupError(Exception):
    """pywb could not be prepared or started (exit 2)."""


@dataclass
class Capture:
    """A WARC record that can be replayed, as read locally with warcio."""

    type: str
    uri: str
    timestamp: str
    content_type: str
    digest: str  # bare Base32
    refers_to_uri: str | None
    refers_to_ts: str | None


@dataclass
class Result:
    kind: str  # "expect" or "revisit"
    url: str
    ok: bool = False
    timestamp: str | None = None
    problems: list[str] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)


def read_captures(archive: Path) -> dict[tuple[str, str], list[Capture]]:
    """Every resource, response, metadata and revisit record, keyed by (URI, timestamp)."""
    out: dict[tuple[str, str], list[Capture]] = {}
    for warc in warc_files(archive):
        with warc.open("rb") as fh:
            for rec in ArchiveIterator(fh):
                h = rec.rec_headers
                uri = h.get_header("WARC-Target-URI")
                if rec.rec_type == "warcinfo" or not uri:
                    continue
                ct = h.get_header("Content-Type") or ""
                if rec.rec_type == "response" and rec.http_headers is not None:
                    ct = rec.http_headers.get_header("Content-Type") or ""
                ref_date = h.get_header("WARC-Refers-To-Date")
                cap = Capture(rec.rec_type, uri, warc_timestamp(h.get_header("WARC-Date") or ""),
                              ct, bare_digest(h.get_header("WARC-Payload-Digest") or ""),
                              h.get_header("WARC-Refers-To-Target-URI"),
                              warc_timestamp(ref_date) if ref_date else None)
                out.setdefault((uri, cap.timestamp), []).append(cap)
    return out


def original_of(rev: Capture, captures: dict[tuple[str, str], list[Capture]]) -> Capture | None:
    """The record a revisit stands for: same digest at WARC-Refers-To-Target-URI (or its own URI),
    at WARC-Refers-To-Date when given, else the latest one before the revisit."""
    uri = rev.refers_to_uri or rev.uri
    cands = [c for (u, _), cs in captures.items() if u == uri for c in cs
             if c.type != "revisit" and c.digest == rev.digest]
    if rev.refers_to_ts:
        cands = [c for c in cands if c.timestamp == rev.refers_to_ts]
    else:
        cands = [c for c in cands if c.timestamp <= rev.timestamp]
    return max(cands, key=lambda c: c.timestamp, default=None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_checked(cmd: list[str], cwd: Path) -> None:
    proc = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        output = (proc.stderr.strip() or proc.stdout.strip())[-1000:]
        raise SetupError(f"{' '.join(cmd[:3])} … exit {proc.returncode}: {output}")


def build_collection(archive: Path, root: Path, own_index: bool, wacz: Path | None) -> None:
    run_checked([venv_tool("wb-manager"), "init", COLL], root)
    if wacz is not None:
        run_checked([venv_tool("wb-manager"), "add", "--unpack-wacz", COLL, str(wacz)], root)
        if not any((root / "collections" / COLL / "indexes").glob("*.cdxj")):
            raise SetupError(f"wb-manager found no index in {wacz}")
        return
    warcs = warc_files(archive)
    if not warcs:
        raise SetupError(f"no *.warc.gz in {archive / WARC_DIR}")
    coll = root / "collections" / COLL
    if not own_index:
        run_checked([venv_tool("wb-manager"), "add", COLL, *map(str, warcs)], root)
        return
    # pywb resolves `filename` against collections/c/archive/, so mirror the index's names there.
    index = archive / INDEX
    names = set()
    for line in index.read_text(encoding="utf-8").splitlines():
        names.add(json.loads(line.split(" ", 2)[2])["filename"])
    for name in sorted(names):
        src = archive / name if (archive / name).is_file() else archive / WARC_DIR / Path(name).name
        if not src.is_file():
            raise SetupError(f"index names {name!r}, which is not in the archive")
        dst = coll / "archive" / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.symlink_to(src.resolve())
    (coll / "indexes" / "index.cdxj").write_bytes(index.read_bytes())


class Wayback:
    """`wayback` on 127.0.0.1 in its own process group; a context manager that always kills it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.startup = 0.0
        self.log = root / "wayback.log"

    def __enter__(self) -> "Wayback":
        try:
            for _attempt in range(3):  # the free port can be taken between probe and bind
                self.port = free_port()
                t0 = time.monotonic()
                with self.log.open("wb") as log:
                    self.proc = subprocess.Popen(
                        [venv_tool("wayback"), "-b", "127.0.0.1", "-p", str(self.port)],
                        cwd=self.root, stdin=subprocess.DEVNULL, stdout=log,
                        stderr=subprocess.STDOUT, start_new_session=True)
                if self._wait_up(t0):
                    self.startup = time.monotonic() - t0
                    return self
                self._kill()
        except BaseException:
            self._kill()  # __exit__ does not run when __enter__ raises (e.g. SIGTERM meanwhile)
            raise
        raise SetupError("wayback did not start: " + self.log.read_text(errors="replace")[-1500:])

    def _wait_up(self, t0: float) -> bool:
        assert self.proc is not None
        while time.monotonic() - t0 < START_TIMEOUT:
            if self.proc.poll() is not None:
                return False
            try:
                with NO_PROXY.open(f"{self.base}/", timeout=2) as r:
                    r.read()
                return True
            except urllib.error.HTTPError:
                return True  # it answers
            except OSError:
                time.sleep(0.05)
        return False

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _kill(self) -> None:
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        self.proc = None

    def __exit__(self, *exc: object) -> None:
        self._kill()

    def get(self, path: str) -> tuple[int, dict[str, str], bytes]:
        """GET on a fresh connection (keep-alive costs pywb 50 ms per request)."""
        try:
            with NO_PROXY.open(self.base + path, timeout=60) as r:
                return r.status, {k.lower(): v for k, v in r.headers.items()}, r.read()
        except urllib.error.HTTPError as e:
            return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()

    def cdx(self, url: str) -> list[dict[str, str]]:
        q = urllib.parse.urlencode({"url": url, "output": "json"})
        status, _, body = self.get(f"/{COLL}/cdx?{q}")
        if status != 200:
            return []
        return [json.loads(line) for line in body.decode("utf-8").splitlines() if line.strip()]

    def replay(self, timestamp: str, url: str) -> tuple[int, dict[str, str], bytes]:
        return self.get(f"/{COLL}/{timestamp}id_/{urllib.parse.quote(url, safe=URL_SAFE)}")


def memento_ts(headers: dict[str, str]) -> str | None:
    value = headers.get("memento-datetime")
    if not value:
        return None
    return email.utils.parsedate_to_datetime(value).strftime("%Y%m%d%H%M%S")


def first_difference(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def check_replay(wb: Wayback, res: Result, ts: str, captures: dict[tuple[str, str], list[Capture]],
                 want: bytes | None, want_digest: str | None) -> None:
    """Replay (url, ts) and compare status, Memento-Datetime, body and Content-Type."""
    res.timestamp = ts
    status, headers, body = wb.replay(ts, res.url)
    res.info.update(status=status, served_bytes=len(body),
                    content_type=headers.get("content-type"),
                    memento=memento_ts(headers))
    if status != 200:
        res.problems.append(f"HTTP {status}")
        return
    if res.info["memento"] != ts:
        res.problems.append(f"pywb replayed the capture of {res.info['memento']}, not {ts} "
                            "(e.g. an unresolved revisit falls back to another capture)")
    if want is not None and body != want:
        res.problems.append(f"body differs: {len(body)} bytes served, {len(want)} expected, "
                            f"first difference at offset {first_difference(body, want)}")
    if want_digest is not None and sha1_base32(body) != want_digest:
        res.problems.append(f"body sha1 {sha1_base32(body)} is not the revisit's digest "
                            f"{want_digest}")
    here = [c for c in captures.get((res.url, ts), []) if c.type != "metadata" or c.content_type
            != "application/warc-fields"]
    if len(here) > 1:
        res.info["shared_key"] = [f"{c.type} {c.content_type}" for c in here]
    # The record whose payload pywb should serve: the capture itself, or a revisit's original.
    main = next((c for c in here if c.type in ("resource", "response")), here[0] if here else None)
    if main is not None and main.type == "revisit":
        orig = original_of(main, captures)
        if orig is None:
            res.problems.append("no original found locally for the revisit")
        main = orig
    if main is None:
        res.problems.append("no record for this URL and timestamp in the WARCs")
    elif headers.get("content-type") != main.content_type:
        res.problems.append(f"Content-Type {headers.get('content-type')!r}, archived "
                            f"{main.content_type!r}")
    if res.info.get("shared_key") and res.problems:
        res.problems.append(f"{len(here)} records share this URL and timestamp "
                            f"({'; '.join(res.info['shared_key'])}): pywb replays the first")


def check_expect(wb: Wayback, url: str, local: Path,
                 captures: dict[tuple[str, str], list[Capture]]) -> Result:
    res = Result("expect", url)
    rows = wb.cdx(url)
    res.info["captures"] = len(rows)
    if not rows:
        res.problems.append("pywb's CDX API lists no capture")
        return res
    ts = max(r["timestamp"] for r in rows)
    res.info["latest_mime"] = next(r["mime"] for r in rows if r["timestamp"] == ts)
    check_replay(wb, res, ts, captures, local.read_bytes(), None)
    res.ok = not res.problems
    return res


def check_revisit(wb: Wayback, url: str, local: Path | None,
                  captures: dict[tuple[str, str], list[Capture]]) -> Result:
    res = Result("revisit", url)
    revisits = [r for r in wb.cdx(url) if r.get("mime") == "warc/revisit"]
    res.info["revisits"] = len(revisits)
    if not revisits:
        res.problems.append("pywb's CDX API lists no warc/revisit capture")
        return res
    last = max(revisits, key=lambda r: r["timestamp"])
    want = local.read_bytes() if local is not None else None
    check_replay(wb, res, last["timestamp"], captures, want, bare_digest(last.get("digest", "")))
    res.ok = not res.problems
    return res


def parse_expect(values: list[str], ap: argparse.ArgumentParser) -> dict[str, Path]:
    out: dict[str, Path] = {}
    for v in values:
        url, sep, path = v.rpartition("=")
        if not sep or not url or not path:
            ap.error(f"--expect wants URL=LOCALFILE, got {v!r}")
        if not Path(path).is_file():
            ap.error(f"--expect {v}: {path} is not a file")
        out[url] = Path(path).resolve()
    return out


def describe(res: Result) -> str:
    head = f"{'ok' if res.ok else 'MISMATCH':8} {res.kind:7} {res.url}"
    if res.timestamp:
        head += f" @{res.timestamp}"
    if res.ok:
        return f"{head} ({res.info.get('served_bytes')} bytes, {res.info.get('content_type')})"
    return head + "".join(f"\n           {p}" for p in res.problems)


def on_signal(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds through Wayback.__exit__, which kills wayback


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("archive", type=Path, help="archive directory (warcs/ and index.cdxj)")
    ap.add_argument("--expect", action="append", default=[], metavar="URL=LOCALFILE",
                    help="URL whose latest capture must replay as LOCALFILE's bytes")
    ap.add_argument("--revisit", action="append", default=[], metavar="URL",
                    help="URL that must have a revisit capture that replays")
    ap.add_argument("--own-index", action="store_true",
                    help="serve ARCHIVE/index.cdxj instead of letting wb-manager index the WARCs")
    ap.add_argument("--wacz", type=Path, metavar="FILE",
                    help="build the collection from this WACZ package of ARCHIVE")
    ap.add_argument("--json", action="store_true",
                    help="print a JSON summary on stdout (the report goes to stderr)")
    ap.add_argument("--keep", type=Path, metavar="DIR",
                    help="build the pywb directory in DIR (must not exist) and keep it")
    args = ap.parse_args()
    archive: Path = args.archive.resolve()  # the pywb tools run in another directory
    if not archive.is_dir():
        ap.error(f"{args.archive} is not a directory")
    expects = parse_expect(args.expect, ap)
    if not expects and not args.revisit:
        ap.error("nothing to check: give --expect and/or --revisit")
    out = sys.stderr if args.json else sys.stdout
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    tmp = None
    if args.keep:
        args.keep.mkdir(parents=True)
        root = args.keep
    else:
        tmp = tempfile.TemporaryDirectory(prefix="pywb-replay-")
        root = Path(tmp.name)
    results: list[Result] = []
    startup, port = None, None
    try:
        captures = read_captures(archive)
        t0 = time.monotonic()
        wacz = args.wacz.resolve() if args.wacz else None
        build_collection(archive, root, args.own_index, wacz)
        prepared = time.monotonic() - t0
        with Wayback(root) as wb:
            startup, port = wb.startup, wb.port
            print(f"pywb_replay {archive}: collection built in {prepared:.1f} s "
                  f"({'own index' if args.own_index else 'WACZ' if wacz else 'wb-manager add'}), "
                  "wayback answered "
                  f"after {wb.startup:.1f} s on port {wb.port}", file=out)
            for url, local in expects.items():
                results.append(check_expect(wb, url, local, captures))
                print(describe(results[-1]), file=out)
            for url in args.revisit:
                results.append(check_revisit(wb, url, expects.get(url), captures))
                print(describe(results[-1]), file=out)
    except SetupError as e:
        print(f"pywb_replay: setup failed: {e}", file=sys.stderr)
        return 2
    finally:
        if tmp is not None:
            tmp.cleanup()
    bad = [r for r in results if not r.ok]
    print(f"pywb_replay: {len(results) - len(bad)} ok, {len(bad)} mismatch", file=out)
    if args.json:
        json.dump({"ok": not bad, "startup_seconds": startup, "port": port,
                   "results": [{"kind": r.kind, "url": r.url, "ok": r.ok, "timestamp": r.timestamp,
                                "problems": r.problems, **r.info} for r in results]},
                  sys.stdout, indent=1)
        print()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
