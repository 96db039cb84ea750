// Called on a closed ShadowRoot over CDP: hand it to the walker registry. Returns true if new.
function () {
  const g = window.__webagent;
  if (!g || !this.host || g.closed.get(this.host) === this) return false;
  g.closed.set(this.host, this);
  return true;
}
