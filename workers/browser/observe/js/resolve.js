// The element behind a ref of the current snapshot version, or null if stale/detached.
([version, id]) => {
  const g = window.__webagent;
  if (!g || !g.snap || g.snap.version !== version) return null;
  const el = g.snap.els[id];
  return el && el.isConnected ? el : null;
}
