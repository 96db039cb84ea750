// Open-modal detection (seed 001 App. A.4 CheckModal): a <dialog> opened with showModal()
// (:modal), a visible [aria-modal=true] element, or a role=dialog/alertdialog that (with its
// fixed backdrop) covers most of the viewport. Returns the top-most one's label and box, or
// null. Read-only: no DOM writes, so change gating and refs are unaffected.
() => {
  const vw = window.innerWidth, vh = window.innerHeight;
  const COVER = 0.6; // share of the viewport a non-aria-modal dialog (or backdrop) must cover
  const squash = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const visible = (el) => {
    if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
  };
  const area = (r) => Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0)) *
    Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
  const covers = (el) => {
    for (let cur = el; cur && cur.nodeType === 1; cur = cur.parentElement) {
      const pos = getComputedStyle(cur).position;
      if (area(cur.getBoundingClientRect()) >= COVER * vw * vh) return true;
      if (pos === 'fixed') break; // a fixed ancestor is the overlay: nothing above it counts
    }
    return false;
  };
  const label = (el) => {
    const own = squash(el.getAttribute('aria-label'));
    if (own) return own;
    const ids = (el.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
    const byId = squash(ids.map((id) => (document.getElementById(id) || {}).textContent || '').join(' '));
    if (byId) return byId;
    const head = el.querySelector('h1,h2,h3,h4,h5,h6,[role=heading],legend');
    return head ? squash(head.textContent) : '';
  };
  const z = (el) => {
    for (let cur = el; cur && cur.nodeType === 1; cur = cur.parentElement) {
      const v = parseInt(getComputedStyle(cur).zIndex, 10);
      if (!Number.isNaN(v)) return v;
    }
    return 0;
  };
  const found = [];
  const add = (el, how) => { if (!found.some((f) => f.el === el)) found.push({ el, how }); };
  let modalDialogs = [];
  try { modalDialogs = Array.from(document.querySelectorAll('dialog:modal')); } catch (e) { /* old engine */ }
  for (const el of modalDialogs) add(el, 'dialog:modal');
  for (const el of document.querySelectorAll('[aria-modal="true" i]')) if (visible(el)) add(el, 'aria-modal');
  for (const el of document.querySelectorAll('[role=dialog],[role=alertdialog],dialog[open]')) {
    if (visible(el) && covers(el)) add(el, 'covering');
  }
  if (!found.length) return null;
  // the top-most one: the top layer (showModal) first, then z-index, then document order
  const rank = (f) => (f.how === 'dialog:modal' ? 1e9 : 0) + z(f.el);
  found.sort((a, b) => rank(a) - rank(b));
  const top = found[found.length - 1];
  const r = top.el.getBoundingClientRect();
  return {
    label: unicodeText.cut(label(top.el), 80),
    role: top.el.getAttribute('role') || (top.el.localName === 'dialog' ? 'dialog' : ''),
    how: top.how,
    box: [r.left, r.top, r.width, r.height],
    count: found.length,
  };
}
