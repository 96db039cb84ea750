// Start counting DOM mutations and input/change events (verify-act-verify, seed 002).
() => {
  const g = window.__webagent || {};
  if (g.watch) g.watch.disconnect();
  const state = { n: 0 };
  const obs = new MutationObserver((r) => { state.n += r.length; });
  obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  const bump = () => { state.n += 1; };
  for (const t of ['input', 'change', 'toggle', 'scroll']) document.addEventListener(t, bump, true);
  window.__webagentWatch = { state, stop: () => { obs.disconnect();
    for (const t of ['input', 'change', 'toggle', 'scroll']) document.removeEventListener(t, bump, true); } };
}
