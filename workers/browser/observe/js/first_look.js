// First look at a document (issue 7, finding of the real-model run): resolve once no element
// has been added or removed for `quietMs`, or after `capMs`. Only structure counts: a page
// that draws itself (skeleton rows, then the content) adds elements; a ticking clock, a
// spinner or a progress bar changes text and attributes only, and does not hold the look.
async ({ quietMs, capMs }) => {
  const start = performance.now();
  let last = start;
  const isEl = (n) => n.nodeType === 1 && !(n.hasAttribute && n.hasAttribute('data-webagent-overlay'));
  const obs = new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === 'childList' && (Array.from(r.addedNodes).some(isEl) || Array.from(r.removedNodes).some(isEl))) {
        last = performance.now();
        return;
      }
    }
  });
  obs.observe(document, { subtree: true, childList: true });
  return await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      const quiet = now - last >= quietMs;
      if (quiet || now - start >= capMs) {
        obs.disconnect();
        resolve({ quiet, waitedMs: Math.round(now - start) });
        return;
      }
      setTimeout(tick, Math.max(4, Math.min(quietMs - (now - last), capMs - (now - start))));
    };
    setTimeout(tick, quietMs);
  });
}
