// Elements whose own visible text contains `query` (the innermost such element) or that
// match `selector`; open shadow roots included. Each hit carries `ids`: the snapshot ids of
// the element, then of its ancestors (nearest first), then of its descendants, so the caller
// can name the nearest one that has a ref (a list item's text sits in a wrapper <div>, the
// snapshot's ref is on the item). A text query that matches only hidden elements returns
// them as `hidden` with the collapsed container's opener (the accordion header before the
// closed panel, the <summary> of a closed <details>, the control aria-controls names).
(o) => {
  const g = window.__webagent;
  const els = g && g.snap ? g.snap.els : [];
  const q = (o.query || '').toLowerCase();
  const hits = [];
  const hidden = [];
  const visible = (n) => {
    const r = n.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && (!n.checkVisibility || n.checkVisibility({ visibilityProperty: true }));
  };
  const squash = (t) => (t || '').replace(/\s+/g, ' ').trim();
  const idsOf = (n) => {
    const ids = [];
    for (let a = n; a; a = a.parentElement || (a.parentNode && a.parentNode.host)) {
      const id = els.indexOf(a);
      if (id >= 0) ids.push(id);
    }
    for (const d of n.querySelectorAll('*')) {
      const id = els.indexOf(d);
      if (id >= 0) ids.push(id);
    }
    return ids;
  };
  // text of a hidden element: innerText is '' there, textContent holds it
  const ownText = (n) => (visible(n) ? n.innerText || '' : n.textContent || '');
  const innermost = (n) => ![...n.children].some((c) => ownText(c).toLowerCase().includes(q));
  // the outermost hidden ancestor-or-self whose parent is shown: the collapsed container
  const container = (n) => {
    let c = n;
    while (c.parentElement && !visible(c.parentElement)) c = c.parentElement;
    return c;
  };
  const opener = (box) => {
    const details = box.closest('details:not([open])');
    if (details && details.querySelector('summary')) return details.querySelector('summary');
    if (box.id) {
      const named = document.querySelector(`[aria-controls~="${CSS.escape(box.id)}"]`);
      if (named && visible(named)) return named;
    }
    for (let s = box.previousElementSibling; s; s = s.previousElementSibling) if (visible(s)) return s;
    return null;
  };
  const describeHidden = (n) => {
    const box = container(n);
    const open = opener(box);
    return { tag: n.localName, text: unicodeText.cut(squash(n.textContent), 100),
      opener: open ? { text: unicodeText.cut(squash(open.innerText || open.getAttribute('aria-label')), 60), ids: idsOf(open) } : null };
  };
  const visit = (root) => {
    for (const n of root.querySelectorAll('*')) {
      if (n.shadowRoot && !(o.hidden && n.closest(o.hidden))) visit(n.shadowRoot);
      if (hits.length >= o.limit) return;
      if (o.hidden && n.closest(o.hidden)) continue;  // private regions (regions.py)
      if (['script', 'style', 'noscript', 'template', 'head', 'title'].includes(n.localName)) continue;
      let ok = false;
      if (o.selector) { try { ok = n.matches(o.selector); } catch (e) { return; } }
      else if (q && ownText(n).toLowerCase().includes(q)) ok = innermost(n);
      if (!ok) continue;
      if (!visible(n)) {
        if (q && hidden.length < 5 && !hidden.some((h) => h.el.contains(n))) hidden.push({ el: n, ...describeHidden(n) });
        continue;
      }
      const r = n.getBoundingClientRect();
      // a check box's value attribute ('on') reads as ticked: its state instead (wave 5 item 1)
      const box = n.localName === 'input' && (n.type === 'checkbox' || n.type === 'radio');
      const said = box ? (n.checked ? 'checked' : 'unchecked') : n.innerText || n.value || '';
      hits.push({ tag: n.localName, text: unicodeText.cut(said.trim(), 100),
        ids: idsOf(n), x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.width), h: Math.round(r.height) });
    }
  };
  visit(document);
  return { hits, hidden: hidden.map(({ el, ...rest }) => rest) };
}
