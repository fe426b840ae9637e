#!/usr/bin/env python3
"""pywb's Memento answers for URLs of an archive, to compare with modoai-explorer's.

    .venv/bin/python tests/python/pywb_memento.py ARCHIVE URL [URL …] [--time N]

Builds a pywb collection of ARCHIVE's WARC files (pywb indexes them itself), starts wayback (the
set-up and the process handling of pywb_replay.py), and prints one JSON object:

  {"urls": {URL: {"timemap": [14-digit timestamps of the link TimeMap's mementos, in order],
                  "bodies": {timestamp: Base32 SHA-1 of the id_ replay's body}}},
   "timemap_ms": [milliseconds of each of N TimeMap requests of the first URL (with --time)]}

Exit 0, or 2 when pywb could not be set up or started.
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
from pywb_replay import COLL, URL_SAFE, SetupError, Wayback, build_collection

MEMENTO = re.compile(r"<[^>]*/(\d{14})mp_/[^>]*>;\s*rel=\"[^\"]*memento[^\"]*\"")


def timemap(wb: Wayback, url: str) -> list[str]:
    status, _, body = wb.get(f"/{COLL}/timemap/link/{urllib.parse.quote(url, safe=URL_SAFE)}")
    if status != 200:
        return []
    return MEMENTO.findall(body.decode("utf-8"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("archive", type=Path)
    ap.add_argument("urls", nargs="+")
    ap.add_argument("--time", type=int, default=0, help="time N TimeMap requests of the first URL")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        try:
            build_collection(args.archive, root, own_index=False, wacz=None)
            with Wayback(root) as wb:
                out: dict[str, object] = {"urls": {}, "timemap_ms": []}
                for url in args.urls:
                    stamps = timemap(wb, url)
                    bodies = {}
                    for ts in stamps[:20]:
                        status, _, body = wb.replay(ts, url)
                        if status == 200:
                            bodies[ts] = sha1_base32(body)
                    out["urls"][url] = {"timemap": stamps, "bodies": bodies}  # type: ignore[index]
                for _ in range(args.time):
                    t0 = time.monotonic()
                    timemap(wb, args.urls[0])
                    out["timemap_ms"].append((time.monotonic() - t0) * 1000)  # type: ignore[union-attr]
                print(json.dumps(out))
                return 0
        except SetupError as e:
            print(f"pywb: {e}", file=sys.stderr)
            return 2


if __name__ == "__main__":
    sys.exit(main())
