// Run page, live view (issue 23 item 2): the worker's screencast from /v1/tasks/{id}/live
// while the run is going, and a person's takeover: after "Take over" (or while the run waits
// for an approval) clicks, wheel scrolls and keys on the picture go to the page; "Hand back"
// lets the agent go on. Coordinates are sent as fractions of the picture.
// Input goes out in order (issue 37 item 1): one request at a time, each sent after the
// previous one answered; characters typed meanwhile are joined into one `text` input, so a
// burst of keys reaches the page as typed.
"use strict";

(() => {
  const root = document.getElementById("run");
  const panel = document.getElementById("live-view");
  if (!root || !panel) return;
  const api = "/v1/tasks/" + encodeURIComponent(root.dataset.taskId);
  const canWrite = root.dataset.canWrite === "true";
  const TERMINAL = new Set(["succeeded", "failed", "cancelled", "timed_out"]);
  const VIEWER = { "X-Webagent-Viewer": "1", "Content-Type": "application/json" };
  const $ = (id) => document.getElementById(id);
  const screen = $("live-frame");
  const note = $("live-state");
  const takeButton = $("take-over");
  const backButton = $("hand-back");
  const state = { source: null, control: "agent", requested: false, reason: null, wheelAt: 0, clock: null };

  if (TERMINAL.has(root.dataset.status)) return;
  panel.hidden = false;

  const clockText = (s) => Math.floor(s / 60) + ":" + String(Math.floor(s % 60)).padStart(2, "0");

  // the task's clock as the worker last said, counted down here between its messages
  function clockNote() {
    const clock = state.clock;
    if (!clock || typeof clock.left !== "number") return "";
    const gone = (Date.now() - clock.at) / 1000;
    if (clock.pause > 0 && gone < clock.pause) {
      return " The task's clock is stopped with " + clockText(clock.left) + " left for the agent;" +
        " it runs again in " + clockText(clock.pause - gone) + " if you keep the page.";
    }
    const left = Math.max(0, clock.left - Math.max(0, gone - clock.pause));
    return " The task's clock is running: " + clockText(left) + " left.";
  }

  function show() {
    const person = state.control === "person";
    screen.classList.toggle("controlled", person);
    const tookOver = person && state.reason !== "approval"; // not just an approval wait
    note.textContent = tookOver
      ? "You have the page: clicks, scrolls and keys on the picture go to the browser." + clockNote()
      : person
        ? "The run waits for your decision; meanwhile clicks, scrolls and keys on the picture go to the browser." + clockNote()
        : state.requested
          ? "Taking over after the agent's current step…"
          : "The agent is acting.";
    if (takeButton) takeButton.hidden = !canWrite || tookOver || state.requested;
    if (backButton) backButton.hidden = !canWrite || !(tookOver || state.requested);
  }

  async function send(path, body) {
    try {
      const response = await fetch(api + path, {
        method: "POST",
        headers: VIEWER,
        body: JSON.stringify(body || {}),
        credentials: "same-origin",
      });
      if (!response.ok) $("live-error").textContent = "HTTP " + response.status;
      else $("live-error").textContent = "";
    } catch (err) {
      $("live-error").textContent = "Request failed: " + err;
    }
  }

  const outbox = [];
  let sending = false;

  function input(body) {
    const last = outbox[outbox.length - 1];
    if (body.kind === "text" && last && last.kind === "text" && last.text.length < 500) {
      last.text += body.text;
    } else {
      outbox.push(body);
    }
    if (!sending) drain();
  }

  async function drain() {
    sending = true;
    while (outbox.length) await send("/live/input", outbox.shift());
    sending = false;
  }

  function point(event) {
    const box = screen.getBoundingClientRect();
    const clamp = (v) => Math.min(1, Math.max(0, v));
    return { x: clamp((event.clientX - box.left) / box.width), y: clamp((event.clientY - box.top) / box.height) };
  }

  screen.addEventListener("click", (event) => {
    screen.focus();
    if (state.control !== "person") return;
    input({ kind: "click", ...point(event) });
  });
  screen.addEventListener("wheel", (event) => {
    if (state.control !== "person") return;
    event.preventDefault();
    const now = Date.now();
    if (now - state.wheelAt < 150) return; // a few scrolls a second are enough
    state.wheelAt = now;
    input({ kind: "wheel", ...point(event), dx: event.deltaX, dy: event.deltaY });
  }, { passive: false });
  screen.addEventListener("keydown", (event) => {
    if (state.control !== "person" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key.length !== 1 && !/^(Enter|Tab|Backspace|Delete|Escape|Arrow(Left|Right|Up|Down)|Home|End|PageUp|PageDown)$/.test(event.key)) return;
    event.preventDefault();
    input(event.key.length === 1 ? { kind: "text", text: event.key } : { kind: "key", key: event.key });
  });
  if (takeButton) takeButton.addEventListener("click", () => { state.requested = true; show(); send("/live/takeover"); });
  if (backButton) backButton.addEventListener("click", () => { state.requested = false; send("/live/handback"); });

  function parse(message) {
    try {
      return JSON.parse(message.data);
    } catch (err) {
      return null;
    }
  }

  function stop() {
    if (state.source) state.source.close();
    state.source = null;
    panel.hidden = true;
  }

  function connect() {
    const source = new EventSource(api + "/live");
    state.source = source;
    source.addEventListener("frame", (message) => {
      const frame = parse(message);
      if (!frame || typeof frame.jpeg !== "string") return;
      screen.src = "data:image/jpeg;base64," + frame.jpeg;
      screen.dataset.frames = String(Number(screen.dataset.frames || 0) + 1);
    });
    source.addEventListener("control", (message) => {
      const control = parse(message);
      if (!control) return;
      state.control = control.by === "person" ? "person" : "agent";
      state.requested = Boolean(control.requested);
      state.reason = control.reason || null;
      state.clock = typeof control.task_left_s === "number"
        ? { left: control.task_left_s, pause: control.pause_left_s || 0, at: Date.now() }
        : null;
      root.dataset.control = state.control;
      show();
    });
    source.addEventListener("end", stop);
    source.addEventListener("error", async () => {
      if (source.readyState !== EventSource.CLOSED || state.source !== source) return;
      // refused (409: not started yet) or dropped: try again while the task may still run
      const task = await fetch(api, { credentials: "same-origin" })
        .then((r) => (r.ok ? r.json() : null))
        .catch(() => null);
      if (!task || TERMINAL.has(task.status)) stop();
      else setTimeout(connect, 1000);
    });
  }

  // the run page's status (run.js) says the run ended before the live stream's `end` does
  new MutationObserver(() => {
    if (TERMINAL.has(root.dataset.status)) stop();
  }).observe(root, { attributes: true, attributeFilter: ["data-status"] });

  connect();
  show();
  setInterval(() => { if (state.control === "person") show(); }, 1000);
})();
