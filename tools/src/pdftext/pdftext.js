// modoai's PDF text worker, run by MuPDF's script runner: `mutool run pdftext.js MARKER`.
// Each line on stdin is a request, "PAGES PATH": the text of the first PAGES pages of the PDF at
// PATH is written to stdout, a line per text line, then the line "MARKER ok PAGES FAILED" (pages
// read, pages that could not be read), or "MARKER error MESSAGE" when the file could not be read
// at all. MARKER is chosen at random by the caller for each process, so no text can end an answer.
// The end of stdin ends the process. Written for MuPDF 1.21 (Debian 12) and later.
var marker = scriptArgs[0];

function pageText(page) {
  var out = [];
  page.toStructuredText().walk({
    onChar: function (c) { out.push(c); },
    endLine: function () { out.push("\n"); },
    endTextBlock: function () { out.push("\n"); }
  });
  return out.join("");
}

for (;;) {
  var line;
  try { line = readline(); } catch (e) { quit(); }
  if (line === null || line === undefined) quit();
  var space = line.indexOf(" ");
  var max = parseInt(line.slice(0, space), 10);
  try {
    var doc = new Document(line.slice(space + 1));
    if (doc.needsPassword()) throw new Error("the PDF is encrypted");
    var pages = Math.min(doc.countPages(), max), failed = 0;
    for (var i = 0; i < pages; i++) {
      try { write(pageText(doc.loadPage(i))); } catch (e) { failed++; }
    }
    doc = null;
    print("\n" + marker + " ok " + pages + " " + failed);
  } catch (e) {
    print("\n" + marker + " error " + String(e).split("\n")[0]);
  }
}
