"""Writes the format test site into the folder given as argument, every file by a real writer
(Pillow, python-docx, odfpy, Python's standard library, LAME and Ghostscript);
tests/server/formats.rs serves it."""

import csv
import gzip
import io
import json
import struct
import subprocess
import sys
import tarfile
import wave
import zipfile
from pathlib import Path

import docx
from odf.opendocument import OpenDocumentText
from odf.text import P
from PIL import Image


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    img = Image.new("RGB", (64, 48), (200, 40, 90))
    img.save(out / "image.png")
    img.save(out / "image.jpg", "JPEG")
    img.convert("P").save(out / "image89a.gif", comment=b"modoai")
    (out / "image87a.gif").write_bytes(
        (out / "image89a.gif").read_bytes().replace(b"GIF89a", b"GIF87a", 1)
    )
    img.save(out / "image.tif", "TIFF")
    img.save(out / "image.bmp", "BMP")
    img.save(out / "image.webp", "WEBP", lossless=True)
    img.save(out / "document.pdf", "PDF")
    (out / "page.html").write_text(
        "<!DOCTYPE html>\n<html><head><title>Formats</title></head>"
        "<body><p>A page.</p></body></html>\n"
    )
    (out / "data.xml").write_text('<?xml version="1.0" encoding="UTF-8"?>\n<data><item>1</item></data>\n')
    (out / "drawing.svg").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="10" height="10">'
        '<rect width="10" height="10"/></svg>\n'
    )
    (out / "notes.txt").write_text("Plain text, written at test time.\n")
    with open(out / "table.csv", "w", newline="") as f:
        csv.writer(f).writerows([["name", "value"], ["a", 1], ["b", 2]])
    (out / "data.json").write_text(json.dumps({"formats": 20, "ok": True}) + "\n")
    with zipfile.ZipFile(out / "archive.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("inside.txt", "zipped\n")
    (out / "notes.txt.gz").write_bytes(gzip.compress(b"gzipped text\n"))
    with tarfile.open(out / "archive.tar", "w") as t:
        data = b"tarred\n"
        info = tarfile.TarInfo("inside.txt")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    d = docx.Document()
    d.add_paragraph("A Word document.")
    d.save(out / "letter.docx")
    o = OpenDocumentText()
    o.text.addElement(P(text="An OpenDocument text."))
    o.save(str(out / "letter.odt"))
    with wave.open(str(out / "tone.wav"), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(b"".join(struct.pack("<h", (i % 40) * 500) for i in range(8000)))
    # LAME and Ghostscript (Debian's lame and ghostscript, from scripts/setup).
    subprocess.run(["lame", "--quiet", "-b", "32", str(out / "tone.wav"), str(out / "tone.mp3")], check=True)
    page = "/Helvetica findfont 20 scalefont setfont 72 720 moveto (Written by Ghostscript) show showpage"
    for name, options in (
        ("ghostscript.pdf", ["-dCompatibilityLevel=1.4"]),
        # PDF/A-1b and PDF/A-2b: Ghostscript writes the pdfaid part and conformance into the XMP.
        ("pdfa1b.pdf", ["-dPDFA=1", "-dPDFACompatibilityPolicy=1", "-sColorConversionStrategy=RGB"]),
        ("pdfa2b.pdf", ["-dPDFA=2", "-dPDFACompatibilityPolicy=1", "-sColorConversionStrategy=RGB"]),
    ):
        subprocess.run(
            ["gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pdfwrite", *options,
             "-o", str(out / name), "-c", page],
            check=True,
        )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
