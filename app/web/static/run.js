// Run page: renders the task's SSE stream (/v1/tasks/{id}/events) as it arrives.
// Replays from the first event, then follows live; every value goes in through
// textContent (never innerHTML), so page text and model output cannot inject markup.
"use strict";

(() => {
  const root = document.getElementById("run");
  if (!root) return;
  const taskId = root.dataset.taskId;
  const api = "/v1/tasks/" + encodeURIComponent(taskId);
  const canWrite = root.dataset.canWrite === "true";
  const VIEWER = { "X-Webagent-Viewer": "1" };
  const PRICES = JSON.parse(root.dataset.prices || "{}"); // USD per 1M tokens in / out by model
  const TERMINAL = new Set(["succeeded", "failed", "cancelled", "timed_out"]);
  const $ = (id) => document.getElementById(id);

  const state = {
    lastSeq: 0,
    steps: new Map(),
    usage: { steps: 0, calls: 0, input: 0, output: 0, cost: 0, unpriced: 0 },
    approvals: new Map(),
    takeover: null, // the span of a takeover not yet handed back
    finished: false,
    source: null,
  };

  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else if (key === "class") node.className = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  // same rule as the service's budget: exact model name, else the longest priced prefix
  function priceOf(model) {
    if (Object.hasOwn(PRICES, model)) return PRICES[model];
    const names = Object.keys(PRICES).filter((name) => model.startsWith(name));
    if (!names.length) return null;
    return PRICES[names.reduce((a, b) => (b.length > a.length ? b : a))];
  }

  function callCost(d) {
    if (typeof d.cost_usd === "number") return d.cost_usd;
    const price = priceOf(String(d.model || ""));
    if (!price) return null;
    return ((d.input_tokens || 0) * price[0] + (d.output_tokens || 0) * price[1]) / 1e6;
  }

  function money(value) {
    return "$" + Number(value).toFixed(4);
  }

  function setStatus(status) {
    const badge = $("status");
    badge.textContent = status;
    badge.className = "badge status-" + status;
    root.dataset.status = status;
    const cancel = $("cancel");
    if (cancel) cancel.hidden = TERMINAL.has(status);
  }

  function showFigures() {
    const u = state.usage;
    $("fig-steps").textContent = String(u.steps);
    $("fig-calls").textContent = String(u.calls);
    $("fig-in").textContent = String(u.input);
    $("fig-out").textContent = String(u.output);
    $("fig-cost").textContent = u.calls && !u.unpriced ? money(u.cost) : "—";
  }

  // -- steps ---------------------------------------------------------------------------
  function stepBox(number) {
    const key = Number.isInteger(number) ? number : 0;
    let box = state.steps.get(key);
    if (box) return box;
    const item = el("li", { class: "step", id: "step-" + key, "data-step": key });
    box = {
      item,
      page: el("p", { class: "page" }),
      thoughts: el("div", { class: "thoughts" }),
      actions: el("ul", { class: "actions" }),
      shot: el("div", { class: "shot" }),
      shotState: "none",
    };
    item.append(
      el("h3", { text: key ? "Step " + key : "Before the first step" }),
      box.page,
      box.thoughts,
      box.actions,
      box.shot,
    );
    const list = $("steps");
    const later = [...list.children].find((li) => Number(li.dataset.step) > key);
    list.insertBefore(item, later || null);
    $("timeline-empty").hidden = true;
    state.steps.set(key, box);
    return box;
  }

  function thumbnail(url, label, onMissing) {
    const img = el("img", { src: url, alt: label, loading: "lazy" });
    const button = el("button", { type: "button", class: "thumb", "aria-label": "Enlarge: " + label }, img);
    button.addEventListener("click", () => openShot(url, label, button));
    img.addEventListener("error", () => {
      button.remove();
      if (onMissing) onMissing();
    });
    return { button, img };
  }

  function screenshot(number) {
    const box = state.steps.get(number);
    if (!box || !number || box.shotState === "shown" || box.shotState === "loading") return;
    box.shotState = "loading";
    const url = api + "/screenshots/" + number;
    const thumb = thumbnail(url, "Screenshot after step " + number, () => (box.shotState = "missing"));
    thumb.img.addEventListener("load", () => (box.shotState = "shown"));
    box.shot.replaceChildren(thumb.button);
  }

  function openShot(url, label, opener) {
    const dialog = $("shot-dialog");
    $("shot-full").src = url;
    $("shot-full").alt = label;
    $("shot-title").textContent = label;
    dialog.addEventListener("close", () => opener.focus(), { once: true });
    dialog.showModal();
    $("shot-close").focus();
  }

  // a JSON verdict (the Planner's) reads better as its reasoning and decision
  function readable(content) {
    if (!content || content.trim()[0] !== "{") return content;
    try {
      const v = JSON.parse(content);
      const parts = [v.reasoning, v.challenges, v.done === true ? "done: yes" : v.done === false ? "done: no" : ""];
      const text = parts.filter((p) => typeof p === "string" && p).join(" · ");
      return text || content;
    } catch (err) {
      return content;
    }
  }

  function argsText(args) {
    const parts = Object.entries(args || {}).map(([k, v]) => k + "=" + JSON.stringify(v));
    return parts.join(", ");
  }

  // what a run used of its sites' memory and what that saved (the memory.used event)
  function memoryText(d) {
    const parts = [];
    const route = d.route;
    if (route) {
      const took = typeof route.fell_back_at === "number" ? ", the model took over at its step " + (route.fell_back_at + 1) : "";
      parts.push("replayed " + route.replayed_steps + " steps of a proven route" + took);
    }
    const facts = (d.facts || []).map((f) => f.key);
    if (facts.length) parts.push("shown facts of earlier runs: " + facts.join(", "));
    const saved = d.saved || {};
    if (saved.calls) {
      const secs = typeof saved.seconds === "number" ? ", about " + saved.seconds + " s" : "";
      parts.push("saved " + saved.calls + " model calls" + secs);
    }
    const stored = d.stored || {};
    if (stored.route) parts.push("stored a route for: " + stored.route);
    if (stored.facts) parts.push("kept " + stored.facts + " facts for later runs");
    return parts.join("; ") || "nothing";
  }

  // -- event handlers --------------------------------------------------------------------
  const handlers = {
    "task.started": () => {
      if (!TERMINAL.has(root.dataset.status)) setStatus("running");
    },
    "route.decided": (d) => {
      const families = (d.families || []).join(", ");
      $("route").textContent =
        "Route: " + d.kind + " (confidence " + d.confidence + (families ? ", " + families : "") + ")";
    },
    "step.started": (d) => {
      const previous = state.usage.steps;
      if (previous && previous !== d.step) window.webagentResult.files(api); // a new download?
      stepBox(d.step);
      state.usage.steps = Math.max(state.usage.steps, d.step || 0);
      if (previous && previous !== d.step) screenshot(previous);
      showFigures();
    },
    observation: (d) => {
      const box = stepBox(d.step);
      box.page.replaceChildren(
        el("span", { class: "title", text: d.title || "(untitled)" }),
        " ",
        el("code", { text: d.url || "" }),
      );
    },
    "llm.call": (d) => {
      const u = state.usage;
      u.calls += 1;
      u.input += d.input_tokens || 0;
      u.output += d.output_tokens || 0;
      const cost = callCost(d);
      if (cost === null) u.unpriced += 1;
      else u.cost += cost;
      showFigures();
      $("calls").append(
        el(
          "tr",
          {},
          el("td", { text: d.step ?? "—" }),
          el("td", { text: d.role }),
          el("td", { text: d.model }),
          el("td", { class: "num", text: d.input_tokens }),
          el("td", { class: "num", text: d.output_tokens }),
          el("td", { class: "num", text: cost === null ? "—" : money(cost) }),
          el("td", { class: "num", text: typeof d.latency_s === "number" ? d.latency_s.toFixed(2) : "—" }),
        ),
      );
      const thought = [d.reasoning, readable(d.content)].filter(Boolean).join("\n");
      if (thought && d.step !== null && d.step !== undefined) {
        stepBox(d.step).thoughts.append(
          el("p", { class: "thought" }, el("span", { class: "role", text: d.role + ": " }), thought),
        );
      }
    },
    "action.executed": (d) => {
      const box = stepBox(d.step);
      const ok = d.success ? "ok" : "failed";
      const detail = [d.reason, d.error ? "error: " + d.error : "", d.page_changed ? "page changed" : ""];
      box.actions.append(
        el(
          "li",
          { class: "action " + ok },
          el("span", { class: "mark", "aria-label": ok, text: d.success ? "✓" : "✗" }),
          " ",
          el("code", { text: d.action + "(" + argsText(d.args) + ")" }),
          el("span", { class: "reason", text: " " + detail.filter(Boolean).join(" · ") }),
        ),
      );
      screenshot(d.step);
    },
    "plan.updated": (d) => {
      $("plan-empty").hidden = true;
      $("subgoal").textContent = d.subgoal ? "Subgoal: " + d.subgoal : "";
      $("checklist").replaceChildren(
        ...(d.checklist || []).map((i) =>
          el("li", { class: "check-" + i.status, "data-status": i.status }, i.text + " (" + i.status + ")"),
        ),
      );
      $("next-steps").replaceChildren(
        ...(d.next_steps || []).map((s) => el("li", { text: "Next: " + s })),
      );
    },
    "fact.recorded": (d) => {
      const conf = d.confidence !== undefined ? ", confidence " + d.confidence : "";
      $("facts").append(el("li", {}, el("strong", { text: d.key }), " = " + d.value + " (" + d.category + conf + ")"));
    },
    "dead_end.recorded": (d) => {
      $("dead-ends").append(
        el("li", {}, el("strong", { text: d.cause || "dead end" }), " " + (d.description || ""), " ", el("code", { text: d.url || "" })),
      );
    },
    "takeover.started": (d, event) => tookOver(d, event),
    "takeover.ended": (d, event) => handedBack(d, event),
    "memory.used": (d) => {
      $("memory").textContent = "Memory: " + memoryText(d);
      $("memory").hidden = false;
    },
    "approval.requested": (d) => requestApproval(d),
    "approval.resolved": (d) => resolveApproval(d.approval_id, d.decision, d.by),
    "task.finished": (d) => finish(d),
  };

  // -- takeovers (issue 37 item 1): a span in the step the agent paused in ----------------
  const clock = (ts) => (ts ? new Date(ts).toLocaleTimeString() : "");
  const ACT_WORDS = { click: "click", wheel: "scroll", key: "key press" };

  function tookOver(d, event) {
    const box = stepBox(state.usage.steps || 0);
    const span = el("li", { class: "takeover", "data-state": "holding" });
    span.append(el("span", { class: "mark", "aria-hidden": "true", text: "✋" }), " ",
      el("span", { class: "what", text: "A person took over" + (d.by ? " (" + d.by + ")" : "") + " at " + clock(event.ts) + "." }));
    box.actions.append(span);
    state.takeover = { span, started: event.ts };
  }

  function handedBack(d, event) {
    const open = state.takeover;
    if (!open) tookOver({ by: d.by }, event);
    const { span, started } = state.takeover;
    state.takeover = null;
    const acts = Object.entries(d.acts || {}).filter(([, n]) => n > 0)
      .map(([kind, n]) => n + " " + (ACT_WORDS[kind] || kind) + (n === 1 ? "" : kind === "key" ? "es" : "s"));
    const held = typeof d.held_s === "number" ? Math.round(d.held_s) + " s" : "";
    const text = "A person had the page " + [started ? "from " + clock(started) : "", "to " + clock(event.ts)].join(" ") +
      (held ? " (" + held + ")" : "") + ": " + (acts.join(", ") || "no input") + "; handed back at ";
    span.dataset.state = "handed-back";
    span.querySelector(".what").replaceChildren(text, el("code", { text: d.url || "" }));
    if (d.screenshot) {
      const url = api + "/artifacts/" + encodeURIComponent(d.screenshot);
      span.append(el("div", { class: "shot" }, thumbnail(url, "The page when it was handed back", null).button));
    }
  }

  // -- approvals ---------------------------------------------------------------------
  // a challenge or login handoff is "approved" once the person has dealt with the page
  const APPROVE_LABEL = { challenge: "Solved: continue", login: "Logged in: continue" };
  // the button's word or the worker's approval.resolved status
  const OUTCOME = { approve: "Approved", approved: "Approved", deny: "Denied", denied: "Denied", expired: "Expired" };

  function requestApproval(d) {
    $("approvals").hidden = false;
    if (!TERMINAL.has(root.dataset.status)) setStatus("awaiting_approval");
    const item = el("li", { class: "approval", "data-approval-id": d.approval_id });
    const what = [d.kind, d.reason, d.element ? "on " + d.element : ""].filter(Boolean).join(" · ");
    item.append(el("p", { text: what }), el("p", {}, el("code", { text: d.url || "" })));
    if (d.expires_at) {
      const expires = el("p", { class: "muted expires", title: d.expires_at, "data-expires": d.expires_at });
      expires.textContent = expiresIn(d.expires_at);
      item.append(expires);
    }
    if (d.screenshot) {
      const url = api + "/approvals/" + encodeURIComponent(d.approval_id) + "/screenshot";
      item.append(thumbnail(url, "Page when approval was requested", null).button);
    }
    const outcome = el("p", { class: "outcome", role: "status" });
    const buttons = el("div", { class: "buttons" });
    if (canWrite) {
      for (const decision of ["approve", "deny"]) {
        buttons.append(
          el("button", {
            type: "button",
            class: decision === "deny" ? "danger" : "primary",
            "data-decision": decision,
            text: decision === "approve" ? APPROVE_LABEL[d.kind] || "Approve" : "Deny",
            onclick: () => decide(d.approval_id, decision),
          }),
        );
      }
    }
    item.append(buttons, outcome);
    $("approval-list").append(item);
    state.approvals.set(d.approval_id, { item, buttons, outcome });
  }

  function resolveApproval(id, decision, by) {
    const entry = state.approvals.get(id);
    if (!entry) return;
    entry.buttons.replaceChildren();
    const label = OUTCOME[decision] || "Closed: " + decision;
    entry.outcome.textContent = label + (by ? " by " + by : "");
    entry.item.classList.add("resolved");
    const expires = entry.item.querySelector(".expires");
    if (expires) expires.remove();
    const open = [...state.approvals.values()].some((a) => !a.item.classList.contains("resolved"));
    if (!open) $("approvals").hidden = true; // nothing waits for a decision any more
    if (!open && !TERMINAL.has(root.dataset.status)) setStatus("running");
  }

  // "expires in 9 min" (the exact time in the title), refreshed while the page is open
  function expiresIn(iso) {
    const left = (Date.parse(iso) - Date.now()) / 1000;
    if (!Number.isFinite(left)) return "expires " + iso;
    if (left <= 0) return "expired";
    if (left < 60) return "expires in " + Math.ceil(left) + " s";
    if (left < 3600) return "expires in " + Math.floor(left / 60) + " min";
    const hours = Math.floor(left / 3600);
    return "expires in " + hours + " h " + Math.floor((left % 3600) / 60) + " min";
  }

  setInterval(() => {
    for (const node of document.querySelectorAll("#approval-list .expires")) {
      node.textContent = expiresIn(node.dataset.expires);
    }
  }, 15000);

  async function decide(id, decision) {
    const response = await post(api + "/approvals/" + encodeURIComponent(id), { decision });
    const entry = state.approvals.get(id);
    const done = entry && entry.item.classList.contains("resolved"); // the event came first
    if (response && response.ok && !done) resolveApproval(id, decision, null);
  }

  // -- cancel and errors -----------------------------------------------------------------
  async function post(url, body) {
    $("action-error").textContent = "";
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { ...VIEWER, "Content-Type": "application/json" },
        body: JSON.stringify(body || {}),
        credentials: "same-origin",
      });
      if (!response.ok) {
        const problem = await response.json().catch(() => ({}));
        $("action-error").textContent = describe(response.status, problem);
      }
      return response;
    } catch (err) {
      $("action-error").textContent = "Request failed: " + err;
      return null;
    }
  }

  function describe(status, problem) {
    // RFC 9457 problem details (app/api/problems.py): `detail` is one sentence
    const detail = typeof problem.detail === "string" ? problem.detail : "";
    return "HTTP " + status + (detail ? ": " + detail : "");
  }

  const cancelButton = $("cancel");
  if (cancelButton) {
    cancelButton.addEventListener("click", async () => {
      cancelButton.disabled = true;
      const response = await post(api + "/cancel");
      if (response && response.ok) {
        const task = await response.json();
        setStatus(task.status);
        if (!TERMINAL.has(task.status)) cancelButton.textContent = "Cancelling…";
      } else {
        cancelButton.disabled = false;
      }
    });
  }

  function finish(d) {
    state.finished = true;
    setStatus(d.status);
    const usage = d.usage || {};
    Object.assign(state.usage, {
      steps: usage.steps ?? state.usage.steps,
      calls: usage.llm_calls ?? state.usage.calls,
      input: usage.input_tokens ?? state.usage.input,
      output: usage.output_tokens ?? state.usage.output,
    });
    if (typeof usage.cost_usd === "number") Object.assign(state.usage, { cost: usage.cost_usd, unpriced: 0 });
    showFigures();
    if (typeof d.duration_s === "number") $("fig-duration").textContent = d.duration_s.toFixed(1) + " s";
    $("final").hidden = false;
    $("final-status").textContent = d.success ? "Succeeded" : "Did not succeed (" + d.status + ")";
    $("final-answer").textContent = d.answer || "";
    const data = d.data ?? (d.result && d.result.data);
    if (data !== undefined && data !== null) {
      $("final-data").hidden = false;
      $("final-data").textContent = JSON.stringify(data, null, 2);
    }
    $("final-error").textContent = d.error ? d.error + (d.error_detail ? ": " + d.error_detail : "") : "";
    window.webagentResult.grounding(d.grounding ?? (d.result && d.result.grounding));
    window.webagentResult.files(api);
    for (const [number, box] of state.steps) if (box.shotState !== "shown") screenshot(number);
    for (const [id, entry] of state.approvals) if (!entry.item.classList.contains("resolved")) resolveApproval(id, "run ended", null);
    stop();
  }

  // -- the stream --------------------------------------------------------------------
  function stop() {
    if (state.source) state.source.close();
    state.source = null;
    $("live").hidden = true;
  }

  function receive(message) {
    let event;
    try {
      event = JSON.parse(message.data);
    } catch (err) {
      return;
    }
    if (typeof event.seq !== "number" || event.seq <= state.lastSeq) return; // replayed twice
    state.lastSeq = event.seq;
    const handle = handlers[event.type];
    if (handle) handle(event.data || {}, event);
    root.dataset.lastSeq = String(event.seq);
  }

  function start() {
    const source = new EventSource(api + "/events");
    state.source = source;
    for (const type of Object.keys(handlers)) source.addEventListener(type, receive);
    source.addEventListener("open", () => ($("live").hidden = state.finished));
    source.addEventListener("error", async () => {
      $("live").hidden = true;
      // a stream that ended without task.finished (e.g. a task stopped by the reaper before
      // it was recorded) would reconnect for ever: read the task once and stop if it is over
      const task = await fetch(api, { credentials: "same-origin" })
        .then((r) => (r.ok ? r.json() : null))
        .catch(() => null);
      if (task && TERMINAL.has(task.status) && !state.finished) {
        finish({ ...task, ...task.result, usage: task.usage, data: task.result && task.result.data });
      } else if (source.readyState === EventSource.CLOSED && !state.finished) {
        $("action-error").textContent = "The event stream closed; reload the page to reconnect.";
      }
    });
  }

  start();
})();
