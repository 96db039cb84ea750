// A node as a JSHandle, for frame.evaluate_handle(script, query): null when `query` is None
// (handlers_read.read_text: read_text.js then reads the main content); ['root']: the
// document element (actions.scroll scrolls the page); ['point', [x, y]]: the element at a
// viewport point (target_info); ['point_own', [x, y]]: that, or null on a frame (click_at); ['snap_hit', i]: the i-th element a snapper probe
// recorded in window.__webagentSnapHits (snapper.Candidate.element).
(query) => {
  if (!query) return null;
  const [op, arg] = query;
  if (op === 'root') return document.documentElement;
  if (op === 'point') return document.elementFromPoint(arg[0], arg[1]);
  if (op === 'point_own') {  // the same, but null on a frame (the snapper looks into it)
    const e = document.elementFromPoint(arg[0], arg[1]);
    return e && /^i?frame$/.test(e.localName) ? null : e;
  }
  if (op === 'snap_hit') return window.__webagentSnapHits[arg];
  throw new Error(`lookup.js: unknown op ${op}`);
}
