// Run page, the result's parts beside the answer: the answer check's verdict
// (result.grounding) and the files the run kept (GET /v1/tasks/{id}/artifacts).
// Loaded before run.js, which calls these; values go in through textContent only.
"use strict";

window.webagentResult = (() => {
  const $ = (id) => document.getElementById(id);

  function list(items) {
    return items.map((item) => "“" + item + "”").join(", ");
  }

  // the answer check: verified, unverified (what no page showed) or nothing to check
  function grounding(g) {
    const box = $("final-grounding");
    if (!box || !g) return;
    let text;
    if (g.verdict === "unverified") {
      text = "Not verified: " + list(g.unseen || []) + " appear on no page the run saw.";
    } else if (g.verdict === "verified") {
      text = "Checked: the answer's " + g.checked + " checkable value(s) were on pages the run saw.";
      if ((g.derived || []).length) text += " Computed from page values: " + list(g.derived) + ".";
    } else {
      text = "Nothing in the answer could be checked against the pages the run saw.";
    }
    if (g.corrected) text += " The model corrected its answer after the check; it first said: " + (g.answer_before_check || "");
    box.textContent = text;
    box.className = "grounding grounding-" + g.verdict;
    box.dataset.verdict = g.verdict;
    box.hidden = false;
  }

  function size(bytes) {
    if (bytes < 1024) return bytes + " B";
    if (bytes < 1024 * 1024) return (bytes / 1024).toFixed(1) + " KB";
    return (bytes / 1024 / 1024).toFixed(1) + " MB";
  }

  const LABEL = { download: "file", approval: "approval screenshot", trace: "run recording" };

  // the task's downloads and approval screenshots (step screenshots are in the timeline)
  function fileItem(api, a) {
    const item = document.createElement("li");
    const link = document.createElement("a");
    link.href = api + "/artifacts/" + encodeURIComponent(a.id);
    link.textContent = a.name || (LABEL[a.kind] || a.kind) + " " + a.step;
    if (a.kind === "download" || a.kind === "trace") link.setAttribute("download", a.name || "");
    item.append(link, " (" + (LABEL[a.kind] || a.kind) + ", " + (a.content_type || "?") + ", " + size(a.size || 0) + ")");
    if (a.kind === "trace") {
      // a Playwright trace opens in Playwright's trace viewer
      const how = document.createElement("code");
      how.className = "trace-command";
      how.textContent = "playwright show-trace " + (a.name || "trace.zip");
      item.append(" open with ", how);
    }
    return item;
  }

  let inFlight = null;
  let again = false;

  async function load(api) {
    const response = await fetch(api + "/artifacts", { credentials: "same-origin" });
    if (!response.ok) return;
    const kept = (await response.json()).filter((a) => a.kind !== "screenshot");
    const ul = $("file-list");
    ul.replaceChildren(...kept.map((a) => fileItem(api, a)));
    $("files").hidden = kept.length === 0;
  }

  // one request at a time; a call during one asks for one more afterwards
  function files(api) {
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = load(api)
      .catch(() => null)
      .finally(() => {
        inFlight = null;
        if (again) {
          again = false;
          files(api);
        }
      });
    return inFlight;
  }

  return { grounding, files };
})();
