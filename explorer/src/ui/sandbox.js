// The API page's sandbox: sends the chosen call with the key typed in (never stored, never sent
// anywhere but to this server's API), shows the status, the rate-limit fields and the JSON, and
// keeps the curl command beside it current. Without JavaScript the form asks the page for the
// curl command instead.
(function () {
  "use strict";
  var form = document.getElementById("sandbox");
  if (!form || !window.fetch) {
    return;
  }
  var paths = JSON.parse(form.getAttribute("data-paths"));
  var status = document.getElementById("status");
  var output = document.getElementById("response");
  var curl = document.getElementById("curl");

  function target() {
    var call = form.elements.call.value;
    var params = form.elements.params.value.trim();
    if (call === "capture") {
      return paths[call] + encodeURIComponent(params);
    }
    return params ? paths[call] + "?" + params : paths[call];
  }

  function showCurl() {
    var url = window.location.origin + target();
    curl.textContent =
      "curl -H \"Authorization: Bearer $KEY\" '" + url.replace(/'/g, "'\\''") + "'";
  }

  function show(response) {
    var fields = ["ratelimit-policy", "ratelimit", "retry-after"]
      .filter(function (h) { return response.headers.get(h); })
      .map(function (h) { return h + ": " + response.headers.get(h); });
    status.textContent = response.status + " " + response.statusText +
      (fields.length ? " · " + fields.join(" · ") : "");
    return response.text().then(function (body) {
      try {
        output.textContent = JSON.stringify(JSON.parse(body), null, 2);
      } catch (e) {
        output.textContent = body;
      }
    });
  }

  form.addEventListener("input", showCurl);
  form.addEventListener("change", showCurl);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var key = document.getElementById("key").value.trim();
    var headers = key ? { Authorization: "Bearer " + key } : {};
    status.textContent = "Asking…";
    output.textContent = "";
    fetch(target(), { headers: headers, credentials: "omit" })
      .then(show)
      .catch(function (e) { status.textContent = "The request failed: " + e; });
  });
  showCurl();
})();
