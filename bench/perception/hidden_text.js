// Ground truth for the hidden-text leak check: text a person cannot see on this page.
// A text node counts as hidden when its element fails checkVisibility (display, visibility,
// opacity, content-visibility), has an empty rendered rect, sits wholly outside the document,
// is clipped to nothing, or is painted in the background colour. Snippets that also occur in
// visible text are dropped, so a leak is unambiguous. Same-origin iframes are included.
// Ground-truth fixes (perception engineer C, after checking each reported leak by hand):
// - backgrounds are composited down the ancestor chain: white text on rgba(0,0,0,0.9) over a
//   white page is readable (medium-3 footer), the old first-opaque-ancestor rule said hidden;
// - the document title is visible (tab strip), so a hidden copy of it is no leak (the whole
//   body of seattletimes-1 is visibility:hidden until its scripts run; only the title shows);
// - a hidden snippet whose 40-character key (what harness.leaks matches) also occurs in
//   visible text is ambiguous and dropped, with quotes normalised: buzzfeed-1 has a hidden
//   copy of its visible headline that differs only in "straight" vs “curly” quotes.
(maxSamples) => {
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'TITLE', 'TEXTAREA', 'OPTION', 'SELECT']);
  const squash = (s) => s.replace(/\s+/g, ' ').trim();
  const hidden = [], visible = [];
  const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const bgOf = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length < 3 || (c.length >= 4 && c[3] === 0)) continue;
      layers.push(c);
      if (c.length < 4 || c[3] >= 1) break;
    }
    let out = [255, 255, 255];
    for (const c of layers.reverse()) {
      const a = c.length >= 4 ? c[3] : 1;
      out = [0, 1, 2].map((i) => c[i] * a + out[i] * (1 - a));
    }
    return out;
  };
  const isHidden = (el, t, doc) => {
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true, contentVisibilityAuto: true })) return true;
    const range = doc.createRange();
    range.selectNodeContents(t);
    const r = range.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return true;
    const sx = doc.defaultView.scrollX, sy = doc.defaultView.scrollY;
    if (r.right + sx <= 0 || r.bottom + sy <= 0) return true;
    for (let e = el; e; e = e.parentElement) {
      const st = getComputedStyle(e);
      if (st.overflow !== 'visible' || st.clip !== 'auto' || st.clipPath !== 'none') {
        const b = e.getBoundingClientRect();
        if (b.width < 1 || b.height < 1) return true;
        if (st.clipPath && st.clipPath.startsWith('inset(50%')) return true;
        if (st.clip && /rect\(0(px)?,? 0(px)?,? 0(px)?,? 0(px)?\)/.test(st.clip)) return true;
      }
    }
    const fg = rgb(getComputedStyle(el).color), bg = bgOf(el);
    if (fg.length >= 3 && Math.abs(fg[0] - bg[0]) + Math.abs(fg[1] - bg[1]) + Math.abs(fg[2] - bg[2]) < 6) return true;
    return false;
  };
  const scan = (doc) => {
    const walker = doc.createTreeWalker(doc.body || doc.documentElement, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const el = t.parentElement;
      if (!el || SKIP.has(el.tagName) || el.closest('noscript,template,script,style')) continue;
      const text = squash(t.data);
      if (text.length < 3) continue;
      (isHidden(el, t, doc) ? hidden : visible).push(text);
    }
    for (const f of doc.querySelectorAll('iframe')) {
      try { if (f.contentDocument && f.contentDocument.body) scan(f.contentDocument); } catch (e) { /* cross-origin */ }
    }
  };
  scan(document);
  visible.push(document.title || '');
  const norm = (s) => squash(s).toLowerCase().replace(/[“”„‟″]/g, '"').replace(/[‘’‚‛′]/g, "'");
  const seen = norm(visible.join(' '));
  const out = [];
  for (const h of hidden) {
    if (h.length < 20) continue;
    const snippet = h.slice(0, 60);
    if (seen.includes(norm(snippet)) || seen.includes(norm(snippet.slice(0, 40)))) continue;
    if (!out.includes(snippet)) out.push(snippet);
    if (out.length >= maxSamples) break;
  }
  return out;
}
