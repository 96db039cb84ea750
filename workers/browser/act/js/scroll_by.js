// Scroll the page, or the nearest ancestor of `el` (crossing shadow hosts) that scrolls on
// the requested axis. o = {dx, dy, amount, pixels, percent, to}; returns the positions.
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
  const page = !t || t === document.body || t === document.documentElement;
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
