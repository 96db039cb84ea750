// Settle on evidence (issue 13, per-step overhead): resolve once the document has had no
// mutation for `quietMs` (`syncQuietMs` when the action's handler changed the page
// synchronously), or after `capMs` at most. Mutations of elements the effect tracker
// (verify_tracker.js) classifies as ambient (clocks, tickers: two or more bursts without
// input) and of our own overlays/attributes do not break the quiet window, so a page with a
// ticking clock settles as fast as a static one. Once a response to a request the action
// started (fetch / XHR, Resource Timing) has arrived and the page changed after it, the
// response has been drawn: the short window then suffices too (what is left is its frame).
// A request still in flight is the caller's to wait for (settle.py NetworkWatch).
async ({ quietMs, syncQuietMs, capMs }) => {
  const V = window.__webagentVerify;
  const start = performance.now();
  // the window starts when the page last moved since the action was armed (its input event,
  // or a later mutation), not when this call arrives: the round trip here is not waited twice
  const s = V && V.session;
  let last = start;
  if (s) {
    V.flush();
    last = Math.max(s.t0, V.inputAt > s.t0 ? V.inputAt : 0, V.changedAt > s.t0 ? V.changedAt : 0);
    // the handler changed the page while its input event ran: a short window catches what
    // its microtasks and the next frame add (a fetch it started is the network's to wait for)
    if (s.records.some((r) => r.causal && !r.ambientBefore)) quietMs = Math.min(quietMs, syncQuietMs);
  }
  // the latest end of a response to a fetch/XHR started since the action (-1: none yet)
  const since = s ? s.t0 : start;
  const responded = () => {
    let end = -1;
    for (const e of performance.getEntriesByType('resource')) {
      if (e.startTime >= since && (e.initiatorType === 'fetch' || e.initiatorType === 'xmlhttprequest')) end = Math.max(end, e.responseEnd);
    }
    return end;
  };
  const windowMs = () => {
    const end = responded();
    return end >= 0 && last > end ? Math.min(quietMs, syncQuietMs) : quietMs;
  };
  let counted = 0;
  let timer = 0;
  let finish;
  const settled = new Promise((resolve) => { finish = resolve; });
  // a tick is due when the current window after the last move ends (or at the cap); every
  // mutation re-plans it, since the window it closes may be the short one
  const plan = () => {
    clearTimeout(timer);
    const now = performance.now();
    timer = setTimeout(tick, Math.max(0, Math.min(windowMs() - (now - last), capMs - (now - start))));
  };
  const tick = () => {
    const now = performance.now();
    const win = windowMs();
    const quiet = now - last >= win;
    if (!quiet && now - start < capMs) return plan();
    obs.disconnect();
    finish({ quiet, waitedMs: Math.round(now - start), mutations: counted, windowMs: win });
  };
  const ours = (r, el) => (r.type === 'attributes' && /^data-(agent|webagent)/.test(r.attributeName || ''))
    || (el.closest && el.closest('[data-webagent-overlay]'));
  const obs = new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (!el || ours(r, el)) continue;
      if (V && V.isAmbient && V.isAmbient(el)) continue;
      counted += 1;
      last = performance.now();
    }
    plan();
  });
  obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  plan();
  return await settled;
}
