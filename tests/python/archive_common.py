"""Shared helpers for archive_check.py and pywb_replay.py: the archive layout, the venv's peer
commands and digest forms.

An archive directory as the harvester writes it (docs/archivists.md, Formats):

    ARCHIVE/warcs/*.warc.gz   WARC 1.1, one gzip member per record, a warcinfo first in each file
    ARCHIVE/index.cdxj        sorted CDXJ over all of them (pywb style)
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import sys
from pathlib import Path

WARC_DIR = "warcs"
INDEX = "index.cdxj"


def venv_tool(name: str) -> str:
    """The console script `name` next to the running interpreter (the repo's .venv), else PATH."""
    here = Path(sys.executable).parent / name
    if here.exists():
        return str(here)
    found = shutil.which(name)
    if found is None:
        sys.exit(f"{name} not found next to {sys.executable} nor on PATH; run scripts/setup")
    return found


def warc_files(archive: Path) -> list[Path]:
    """The closed WARC files of an archive, sorted by name."""
    return sorted((archive / WARC_DIR).glob("*.warc.gz"))


def bare_digest(value: str) -> str:
    """A digest without its algorithm label: cdxj-indexer writes `sha1:B32`, pywb's own indexer
    and CDX-11 write `B32`."""
    label, sep, rest = value.partition(":")
    return rest if sep and label.lower() in ("sha1", "sha-1") else value


def sha1_base32(data: bytes) -> str:
    """The WARC digest value of `data`: SHA-1, RFC 4648 Base32, unpadded, as
    Heritrix, wget, warcio and pywb write it."""
    return base64.b32encode(hashlib.sha1(data).digest()).decode("ascii").rstrip("=")


def warc_timestamp(warc_date: str) -> str:
    """A WARC-Date (W3C-DTF, UTC) cut to the 14 digits CDXJ uses."""
    digits = "".join(c for c in warc_date if c.isdigit())
    return (digits + "00000000000000")[:14]
