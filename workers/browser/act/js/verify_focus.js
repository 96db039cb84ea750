// The focused element's state for a key press's report (seed 002 verify-act-verify): what it
// is, its value / aria-valuenow / aria-valuetext / checked state, its own short text and
// where it sits (a slider handle without a value moves). Focus is followed into open shadow
// roots and same-origin iframes. null when nothing but the body has focus.
() => {
  let doc = document;
  let f = doc.activeElement;
  for (;;) {
    while (f && f.shadowRoot && f.shadowRoot.activeElement) f = f.shadowRoot.activeElement;
    if (f && ['iframe', 'frame'].includes(f.localName)) {
      try { doc = f.contentDocument; } catch (e) { break; }
      if (!doc || !doc.activeElement || doc.activeElement === doc.body) break;
      f = doc.activeElement;
      continue;
    }
    break;
  }
  if (!f || f === doc.body || f === doc.documentElement) return null;
  const squash = (t) => (t || '').replace(/\s+/g, ' ').trim();
  const r = f.getBoundingClientRect();
  const label = f.getAttribute('aria-label') || (f.labels && f.labels[0] ? f.labels[0].innerText : '') || f.getAttribute('title') || '';
  return {
    what: f.getAttribute('role') || (f.localName === 'input' ? `${f.type || 'text'} field` : f.localName),
    name: unicodeText.cut(squash(label), 40),
    value: 'value' in f && typeof f.value === 'string' && f.localName !== 'button' ? f.value : null,
    valuenow: f.getAttribute('aria-valuenow'),
    valuetext: f.getAttribute('aria-valuetext'),
    checked: 'checked' in f ? !!f.checked : f.getAttribute('aria-checked'),
    expanded: f.getAttribute('aria-expanded'),
    selected: f.getAttribute('aria-selected'),
    text: f.isContentEditable || !f.children.length ? unicodeText.cut(squash(f.innerText), 60) : '',
    x: Math.round(r.left), y: Math.round(r.top), w: Math.round(r.width), h: Math.round(r.height),
  };
}
