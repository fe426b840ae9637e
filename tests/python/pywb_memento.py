#!/usr/bin/env python3
"""pywb's Memento answers for URLs of an archive, to compare with modoai-explorer's.

    .venv/bin/python tests/python/pywb_memento.py ARCHIVE URL [URL …] [--closest TS …] [--time N]

Builds a pywb collection of ARCHIVE's WARC files (pywb indexes them itself), starts wayback (the
set-up and the process handling of pywb_replay.py), and prints one JSON object:

  {"urls": {URL: {"timemap": [14-digit timestamps of the link TimeMap's mementos, in order],
                  "bodies": {timestamp: Base32 SHA-1 of the id_ replay's body},
                  "closest": {TS: the timestamp of the capture pywb replays when asked TS},
                  "cdx": [the 14-digit timestamps of its CDX API's lines, in order]}},
   "timemap_ms": [milliseconds of each of N TimeMap requests of the first URL (with --time)]}

Exit 0; 1 when pywb answers anything but 200 (an answer to compare with is never left out);
2 when pywb could not be set up or started.
"""

from __future__ import annotations

import sys

sys.dont_write_bytecode = True

import argparse
import json
import re
import tempfile
import time
import urllib.parse
from pathlib import Path

from archive_common import sha1_base32
from pywb_replay import COLL, URL_SAFE, SetupError, Wayback, build_collection, memento_ts

MEMENTO = re.compile(r"<[^>]*/(\d{14})mp_/[^>]*>;\s*rel=\"[^\"]*memento[^\"]*\"")


class NotOk(Exception):
    """pywb answered a request with another status than 200."""


def timemap(wb: Wayback, url: str) -> list[str]:
    path = f"/{COLL}/timemap/link/{urllib.parse.quote(url, safe=URL_SAFE)}"
    status, _, body = wb.get(path)
    if status != 200:
        raise NotOk(f"{path}: {status}")
    return MEMENTO.findall(body.decode("utf-8"))


def replay(wb: Wayback, ts: str, url: str) -> tuple[dict[str, str], bytes]:
    status, headers, body = wb.replay(ts, url)
    if status != 200:
        raise NotOk(f"the id_ replay of {url} at {ts}: {status}")
    return headers, body


def cdx(wb: Wayback, url: str) -> list[str]:
    q = urllib.parse.urlencode({"url": url, "output": "json"})
    status, _, body = wb.get(f"/{COLL}/cdx?{q}")
    if status != 200:
        raise NotOk(f"the CDX API for {url}: {status}")
    lines = [json.loads(line) for line in body.decode("utf-8").splitlines() if line.strip()]
    return [line["timestamp"] for line in lines]


def answers(wb: Wayback, url: str, closest: list[str]) -> dict[str, object]:
    stamps = timemap(wb, url)
    bodies = {ts: sha1_base32(replay(wb, ts, url)[1]) for ts in stamps[:20]}
    chosen = {}
    for ts in closest:
        headers, _ = replay(wb, ts, url)
        chosen[ts] = memento_ts(headers)
        if chosen[ts] is None:
            raise NotOk(f"the id_ replay of {url} at {ts} has no Memento-Datetime")
    return {"timemap": stamps, "bodies": bodies, "closest": chosen, "cdx": cdx(wb, url)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archive", type=Path)
    ap.add_argument("urls", nargs="+")
    ap.add_argument("--closest", nargs="*", default=[], metavar="TS",
                    help="14-digit timestamps to ask each URL's closest capture at")
    ap.add_argument("--time", type=int, default=0, help="time N TimeMap requests of the first URL")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        try:
            build_collection(args.archive, root, own_index=False, wacz=None)
            with Wayback(root) as wb:
                out: dict[str, object] = {"urls": {}, "timemap_ms": []}
                for url in args.urls:
                    out["urls"][url] = answers(wb, url, args.closest)  # type: ignore[index]
                for _ in range(args.time):
                    t0 = time.monotonic()
                    timemap(wb, args.urls[0])
                    out["timemap_ms"].append((time.monotonic() - t0) * 1000)  # type: ignore[union-attr]
                print(json.dumps(out))
                return 0
        except NotOk as e:
            print(f"pywb did not answer 200: {e}", file=sys.stderr)
            return 1
        except SetupError as e:
            print(f"pywb: {e}", file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main())
