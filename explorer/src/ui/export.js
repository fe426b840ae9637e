// The export menu's downloads with a key, and their progress. A link cannot send a key, so a
// click asks the API for a ticket (POST /api/v1/export/ticket, with the key typed in, if any:
// never stored, never sent anywhere but to this server's API), downloads the export with the
// ticket in its URL, and shows how far the export is until it ends. Without JavaScript the
// links download as they are (where the API answers without a key).
(function () {
  "use strict";
  var menu = document.querySelector("details.export");
  if (!menu || !window.fetch) {
    return;
  }
  var key = menu.querySelector("input.ticket-key-input");
  var shown = menu.querySelector("p.export-progress");
  var bar = shown.querySelector("progress");
  var said = shown.querySelector("span");

  function say(text, value, max) {
    shown.hidden = false;
    said.textContent = text;
    if (max > 0) {
      bar.max = max;
      bar.value = value;
    } else {
      bar.removeAttribute("value");
    }
  }

  function count(n) {
    return n.toLocaleString("en-US");
  }

  function follow(path, started) {
    fetch(path, { credentials: "omit" })
      .then(function (r) { return r.json(); })
      .then(function (p) {
        if (p.stage === "complete") {
          say("Complete: " + count(p.written) + " captures.", 1, 1);
          return;
        }
        if (p.stage === "stopped") {
          say("Stopped after " + count(p.written) + " of " + count(p.total) +
              " captures: " + p.reason, p.written, p.total);
          return;
        }
        if (p.stage === "waiting" && Date.now() - started > 60000) {
          say("The download did not start; try again.", 0, 0);
          return;
        }
        if (p.stage === "running") {
          say(count(p.written) + " of " + count(p.total) + " captures written…",
              p.written, p.total);
        }
        window.setTimeout(function () { follow(path, started); }, 500);
      })
      .catch(function (e) { say("The export's progress cannot be read: " + e, 0, 0); });
  }

  function download(link) {
    var typed = key ? key.value.trim() : "";
    var headers = typed ? { Authorization: "Bearer " + typed } : {};
    say("Asking for the export…", 0, 0);
    fetch("/api/v1/export/ticket", { method: "POST", headers: headers, credentials: "omit" })
      .then(function (r) {
        return r.json().then(function (body) { return { ok: r.ok, body: body }; });
      })
      .then(function (answer) {
        if (!answer.ok) {
          say(answer.body.error ? answer.body.error.message : "The export was refused.", 0, 0);
          return;
        }
        var a = document.createElement("a");
        a.href = link.href + "&ticket=" + encodeURIComponent(answer.body.ticket);
        a.setAttribute("download", "");
        a.hidden = true;
        document.body.appendChild(a);
        a.click();
        a.remove();
        say("Starting…", 0, 0);
        follow(answer.body.progress, Date.now());
      })
      .catch(function (e) { say("The export could not be asked for: " + e, 0, 0); });
  }

  menu.querySelectorAll("a.export-format").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      download(link);
    });
  });
})();
