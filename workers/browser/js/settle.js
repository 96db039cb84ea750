// Settle on evidence (issue 13, per-step overhead): resolve once the document has had no
// mutation for `quietMs`, or after `capMs` at most. Mutations of elements the effect tracker
// (verify_tracker.js) classifies as ambient (clocks, tickers: two or more bursts without
// input) and of our own overlays/attributes do not break the quiet window, so a page with a
// ticking clock settles as fast as a static one.
async ({ quietMs, capMs }) => {
  const V = window.__webagentVerify;
  const start = performance.now();
  let last = start;
  let counted = 0;
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
  });
  obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  return await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      const quiet = now - last >= quietMs;
      if (quiet || now - start >= capMs) {
        obs.disconnect();
        resolve({ quiet, waitedMs: Math.round(now - start), mutations: counted });
        return;
      }
      setTimeout(tick, Math.max(4, Math.min(quietMs - (now - last), capMs - (now - start))));
    };
    setTimeout(tick, quietMs);
  });
}
