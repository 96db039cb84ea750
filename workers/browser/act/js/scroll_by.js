// Scroll the page, or the nearest ancestor of `el` (crossing shadow hosts) that scrolls on
// the requested axis (a horizontal one the page cannot take: the strip that can, inside `el`
// or the widest shown). o = {dx, dy, amount, pixels, percent, to}; returns the positions.
(el, o) => {
  const horizontal = o.dx !== 0;
  const scrolls = (n) => {
    const s = getComputedStyle(n);
    return horizontal
      ? n.scrollWidth > n.clientWidth + 1 && !['hidden', 'visible'].includes(s.overflowX)
      : n.scrollHeight > n.clientHeight + 1 && !['hidden', 'visible'].includes(s.overflowY);
  };
  let t = el;
  while (t && t !== document.body && t !== document.documentElement && !scrolls(t)) {
    const root = t.getRootNode();
    t = t.parentElement || (root && root.host) || null;
  }
  let page = !t || t === document.body || t === document.documentElement;
  // issue 26 item 8: a horizontal scroll the page cannot take goes to the strip that can —
  // inside the element named, else the widest one shown in the viewport
  const root = document.scrollingElement || document.documentElement;
  const named = el && el !== document.documentElement && el !== document.body;
  if (page && (named || (horizontal && root.scrollWidth <= innerWidth + 1))) {
    const shown = (n) => { const r = n.getBoundingClientRect(); return r.width > 0 && r.bottom > 0 && r.top < innerHeight; };
    const pool = Array.from((named ? el : document).querySelectorAll('*'))
      .filter((n) => scrolls(n) && shown(n));
    pool.sort((a, b) => b.clientWidth * b.clientHeight - a.clientWidth * a.clientHeight);
    if (pool.length) { t = pool[0]; page = false; }
  }
  const box = page ? (document.scrollingElement || document.documentElement) : t;
  const view = page ? [innerWidth, innerHeight] : [t.clientWidth, t.clientHeight];
  const pos = () => ({ x: Math.round(box.scrollLeft), y: Math.round(box.scrollTop),
    width: box.scrollWidth, height: box.scrollHeight, view_w: view[0], view_h: view[1] });
  const before = pos();
  const span = horizontal ? box.scrollWidth - view[0] : box.scrollHeight - view[1];
  let left = box.scrollLeft, top = box.scrollTop;
  const set = (v) => { if (horizontal) left = v; else top = v; };
  if (o.to === 'top') set(0);
  else if (o.to === 'bottom') set(span);
  else if (o.percent !== null && o.percent !== undefined) set(span * o.percent / 100);
  else {
    const step = o.pixels || (horizontal ? view[0] : view[1]) * o.amount;
    left += o.dx * step; top += o.dy * step;
  }
  box.scrollTo({ left, top, behavior: 'instant' });
  return { before, after: pos(), page, tag: page ? 'page' : t.localName };
}
