// Stop counting and return how many changes the action caused (-1: watcher lost).
() => {
  const w = window.__webagentWatch;
  if (!w) return -1;
  w.stop();
  delete window.__webagentWatch;
  return w.state.n;
}
