#!/usr/bin/env python3
"""What pywb's identity replay (id_) answers for captures of WARC/ARC files, as JSON.

    .venv/bin/python tests/python/pywb_id.py DIR TIMESTAMP=URL [TIMESTAMP=URL …]

Builds a pywb collection of every *.warc, *.warc.gz, *.arc and *.arc.gz file in DIR
(`wb-manager add`), starts `wayback` (pywb_replay.Wayback), and for each capture fetches
/c/TIMESTAMP id_/URL without following redirects. Prints a JSON list of {"timestamp", "url",
"status", "content_type", "memento_datetime", "body" (Base64)}. Exit 2 when pywb cannot be set
up."""

import base64
import json
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

sys.dont_write_bytecode = True  # keep tests/python free of __pycache__
sys.path.insert(0, str(Path(__file__).parent))

from pywb_replay import COLL, URL_SAFE, SetupError, Wayback, run_checked, venv_tool  # noqa: E402


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirect())


def fetch(base, timestamp, url):
    path = f"/{COLL}/{timestamp}id_/{urllib.parse.quote(url, safe=URL_SAFE)}"
    try:
        with OPENER.open(base + path, timeout=60) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def main():
    folder = Path(sys.argv[1]).resolve()
    wanted = [a.split("=", 1) for a in sys.argv[2:]]
    files = sorted(p for p in folder.iterdir()
                   if p.name.endswith((".warc", ".warc.gz", ".arc", ".arc.gz")))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        try:
            run_checked([venv_tool("wb-manager"), "init", COLL], root)
            run_checked([venv_tool("wb-manager"), "add", COLL, *map(str, files)], root)
        except SetupError as e:
            print(e, file=sys.stderr)
            return 2
        out = []
        with Wayback(root) as wb:
            for timestamp, url in wanted:
                status, headers, body = fetch(wb.base, timestamp, url)
                out.append({
                    "timestamp": timestamp, "url": url, "status": status,
                    "content_type": headers.get("Content-Type"),
                    "headers": list(headers.items()),
                    "memento_datetime": headers.get("Memento-Datetime"),
                    "body": base64.b64encode(body).decode(),
                })
        print(json.dumps(out))
        return 0


if __name__ == "__main__":
    sys.exit(main())
