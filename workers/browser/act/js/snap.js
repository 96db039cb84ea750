// Snapper probes of seed 000 Algorithm 4, run in one frame with a box in that frame's
// viewport coordinates: Phase A pinpoint at the box centre (WalkFront2Back to the first
// interactive element), Phase A-alt descent into same-origin iframes (coordinates translated
// back), and the Phase B grid points (i, j = 1..4 of a 5×5 division). Scoring is done in
// Python (workers/browser/act/snapper.py); the hit elements stay in window.__webagentSnapHits so a
// handle to the chosen one can be taken. A cross-origin iframe is reported, not entered.
(args) => {
  const [x0, y0, x1, y1] = args.box;
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'treeitem', 'gridcell']);
  const g = window.__webagent;
  const hits = [];
  const descs = [];

  function interactive(el) {
    const tag = el.localName;
    if (tag === 'html' || tag === 'body') return false;
    const role = el.getAttribute('role');
    if (role && ROLES.has(role)) return true;
    if (tag === 'a' && el.hasAttribute('href')) return true;
    if (['button', 'select', 'textarea', 'summary', 'iframe', 'frame', 'label'].includes(tag)) return true;
    if (tag === 'input' && el.type !== 'hidden') return true;
    if (el.isContentEditable || el.hasAttribute('onclick') || el.onclick || el.onmousedown) return true;
    const ti = el.getAttribute('tabindex');
    if (ti !== null && +ti >= 0) return true;
    if (g && g.listeners && g.listeners.has(el)) return true;
    const parent = el.parentElement;
    const cursor = getComputedStyle(el).cursor;
    return cursor === 'pointer' && (!parent || getComputedStyle(parent).cursor !== 'pointer');
  }

  function xpath(el) {
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentNode) {
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === n.localName) i += 1;
      parts.unshift(`${n.localName}[${i}]`);
    }
    return '/' + parts.join('/');
  }

  function pseudo(el, which) {
    const c = getComputedStyle(el, which).content;
    return c && c !== 'none' && c !== 'normal' ? c.replace(/^["']|["']$/g, '') : '';
  }

  function describe(el, off) {
    const r = el.getBoundingClientRect();
    const text = unicodeText.cut((pseudo(el, '::before') + ' ' + (el.innerText || el.value || '') + ' ' + pseudo(el, '::after'))
      .replace(/\s+/g, ' ').trim(), 200);
    return {
      rect: [r.left + off[0], r.top + off[1], r.right + off[0], r.bottom + off[1]],
      text,
      aria: ((el.getAttribute('aria-label') || '') + ' ' + (el.getAttribute('title') || '')).trim(),
      role: el.getAttribute('role') || '',
      tag: el.localName,
      type: (el.getAttribute('type') || '').toLowerCase(),
      expanded: el.getAttribute('aria-expanded'),
      haspopup: !!el.getAttribute('aria-haspopup') && el.getAttribute('aria-haspopup') !== 'false',
      calendar: !!el.closest('[role=grid], table, [class*=calendar], [class*=datepicker], [class*=date-picker]'),
      list: !!el.closest('[role=listbox], [role=menu], select, datalist, [class*=dropdown], [class*=autocomplete], [class*=suggest]'),
      xpath: xpath(el),
    };
  }

  function frameOffset(frameEl, off) {
    const r = frameEl.getBoundingClientRect();
    return [off[0] + r.left + frameEl.clientLeft, off[1] + r.top + frameEl.clientTop];
  }

  // First interactive element at (x, y) of `doc`, descending into same-origin iframes.
  function firstAt(doc, x, y, off, chain) {
    for (const el of doc.elementsFromPoint(x - off[0], y - off[1])) {
      if (!interactive(el)) continue;
      if (el.localName !== 'iframe' && el.localName !== 'frame') return { el, off, chain };
      let inner = null;
      try { inner = el.contentDocument; } catch (e) { inner = null; }
      const index = Array.from(doc.querySelectorAll('iframe, frame')).indexOf(el);
      if (!inner) return { el, off, chain, crossOrigin: { index, offset: frameOffset(el, off) } };
      const deeper = firstAt(inner, x, y, frameOffset(el, off), chain.concat([index]));
      return deeper || { el, off, chain };
    }
    return null;
  }

  function record(found) {
    if (!found) return null;
    let i = hits.indexOf(found.el);
    if (i < 0) {
      i = hits.length;
      hits.push(found.el);
      descs.push(Object.assign(describe(found.el, found.off), { frames: found.chain }));
    }
    return i;
  }

  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  const centre = firstAt(document, cx, cy, [0, 0], []);
  const out = { centre: record(centre), crossOrigin: centre && centre.crossOrigin ? centre.crossOrigin : null, grid: [] };
  for (let i = 1; i <= 4; i += 1) {
    for (let j = 1; j <= 4; j += 1) {
      const px = x0 + (x1 - x0) * i / 5, py = y0 + (y1 - y0) * j / 5;
      out.grid.push([px, py, record(firstAt(document, px, py, [0, 0], []))]);
    }
  }
  window.__webagentSnapHits = hits;
  out.candidates = descs;
  return out;
}
