// Elements whose own visible text contains `query` (the innermost such element) or that
// match `selector`; open shadow roots included. Returns snapshot ids where the element has one.
(o) => {
  const g = window.__webagent;
  const els = g && g.snap ? g.snap.els : [];
  const q = (o.query || '').toLowerCase();
  const hits = [];
  const visible = (n) => {
    const r = n.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && (!n.checkVisibility || n.checkVisibility({ visibilityProperty: true }));
  };
  const visit = (root) => {
    for (const n of root.querySelectorAll('*')) {
      if (n.shadowRoot && !(o.hidden && n.closest(o.hidden))) visit(n.shadowRoot);
      if (hits.length >= o.limit) return;
      if (o.hidden && n.closest(o.hidden)) continue;  // private regions (regions.py)
      let ok = false;
      if (o.selector) { try { ok = n.matches(o.selector); } catch (e) { return; } }
      else if (q && (n.innerText || '').toLowerCase().includes(q)) {
        ok = ![...n.children].some((c) => (c.innerText || '').toLowerCase().includes(q));
      }
      if (!ok || !visible(n)) continue;
      let owner = n, id = -1;
      while (owner && id < 0) { id = els.indexOf(owner); owner = owner.parentElement; }
      const r = n.getBoundingClientRect();
      hits.push({ tag: n.localName, text: (n.innerText || n.value || '').trim().slice(0, 100),
        id, x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.width), h: Math.round(r.height) });
    }
  };
  visit(document);
  return hits;
}
