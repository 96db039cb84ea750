// Scroll the nearest scrollable ancestor of an element (crossing shadow hosts), else the page.
(el, [dx, dy, amount]) => {
  let t = el;
  const scrollable = (n) => n.scrollHeight > n.clientHeight + 1 || n.scrollWidth > n.clientWidth + 1;
  while (t && t !== document.body && t !== document.documentElement && !scrollable(t)) {
    const root = t.getRootNode();
    t = t.parentElement || (root && root.host) || null;
  }
  if (!t || t === document.body || t === document.documentElement) {
    window.scrollBy({ left: dx * innerWidth * amount, top: dy * innerHeight * amount, behavior: 'instant' });
    return;
  }
  t.scrollBy({ left: dx * t.clientWidth * amount, top: dy * t.clientHeight * amount, behavior: 'instant' });
}
