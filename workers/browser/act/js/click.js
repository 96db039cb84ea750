// Element probes of the click cascade (seed 000 §6.3, Algorithm 5): ElementHandle.evaluate(el, [op, ...]).
// op "probe": found / disabled / visible / in viewport / hit at its centre (not clipped by a
//   scrolled box), the frame-local rect, an identity
//   (document URL + XPath), the active (checked / pressed / selected) state, editable;
// op "scroll": scrollIntoView (block centre, or nearest for tier 3);
// op "top": the elementsFromPoint check at a frame-local point: "ok" when the element, something
//   inside it in the flat (composed) tree (its shadow content, light-DOM children slotted into
//   it), its <label>, or an SVG text drawn over it in the same <svg> (a shape's own label,
//   e.g. a pie toggle's "+") is on top; "covered" naming what is; "ambiguous" when the point
//   reaches only the element's container (the element itself is not hit);
// op "aim": "probe" with `top` = the "top" verdict at its centre when it is ready to click
//   there (found, enabled, visible, in the viewport, hit), else null (the click-path fast lane);
// op "jsclick": tier 3, the scripted el.click() (isTrusted=false).
(el, args) => {
  const [op, x, y] = args;
  const r = el.getBoundingClientRect();
  // flat-tree parent: the slot a light-DOM child is shown in, else its parent, else the shadow host
  const up = (n) => n.assignedSlot || n.parentNode || n.host;
  const inside = (outer, inner) => {
    for (let n = inner; n; n = up(n)) if (n === outer) return true;
    return false;
  };
  const probe = () => {
    const st = getComputedStyle(el);
    const win = el.ownerDocument.defaultView;
    const visible = el.isConnected && r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none';
    const disabled = !!el.disabled || (el.closest && !!el.closest('fieldset[disabled]') && ['button', 'input', 'select', 'textarea'].includes(el.localName));
    const inViewport = r.bottom > 0 && r.right > 0 && r.top < win.innerHeight && r.left < win.innerWidth
      && r.top >= 0 && r.left >= 0 && r.bottom <= win.innerHeight && r.right <= win.innerWidth;
    const parts = [];
    for (let n = el; n && n.nodeType === 1; n = n.parentNode) {
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === n.localName) i += 1;
      parts.unshift(`${n.localName}[${i}]`);
    }
    const root = el.getRootNode && el.getRootNode().elementsFromPoint ? el.getRootNode() : el.ownerDocument;
    const centre = root.elementsFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    const hit = centre.some((e) => inside(el, e));
    const active = !!(el.checked || el.selected) || ['true', 'mixed'].includes(el.getAttribute('aria-pressed'))
      || el.getAttribute('aria-checked') === 'true' || el.getAttribute('aria-selected') === 'true';
    return { found: el.isConnected, disabled, visible, inViewport, local: [r.left, r.top, r.right, r.bottom],
      key: `${win.location.href}|/${parts.join('/')}`, active, hit,
      editable: el.isContentEditable || ['input', 'textarea'].includes(el.localName) };
  };
  // elementsFromPoint at a frame-local point
  const onTop = (x, y) => {
    const root = el.getRootNode && el.getRootNode().elementsFromPoint ? el.getRootNode() : el.ownerDocument;
    const stack = root.elementsFromPoint(x, y);
    const top = stack[0];
    if (!top) return { verdict: 'ambiguous', cover: '' };
    if (inside(el, top) || (top.localName === 'label' && top.control === el)) return { verdict: 'ok', cover: '' };
    // an SVG label over its shape: under the text (and its tspans) the first thing is the element
    const win = el.ownerDocument.defaultView;
    const isText = (e) => e instanceof win.SVGTextContentElement;
    const under = stack.find((e) => !isText(e));
    if (isText(top) && el instanceof win.SVGElement && top.ownerSVGElement === el.ownerSVGElement
      && under && inside(el, under)) return { verdict: 'ok', cover: '' };
    const describe = (e) => {
      const id = e.id ? `#${e.id}` : '';
      const cls = typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\s+/).slice(0, 2).join('.') : '';
      const text = unicodeText.cut((e.innerText || e.getAttribute('aria-label') || '').replace(/\s+/g, ' ').trim(), 40);
      return `${e.localName}${id}${cls}${text ? ` "${text}"` : ''}`;
    };
    if (!stack.includes(el) && inside(top, el)) return { verdict: 'ambiguous', cover: describe(top) };
    return { verdict: 'covered', cover: describe(top) };
  };
  if (op === 'probe') return probe();
  if (op === 'aim') {
    // "probe" plus the "top" check at the centre in one round trip, when the element can be
    // clicked where it is (found, enabled, shown, in view, hit at its centre); else top null
    const p = probe();
    const ready = p.found && !p.disabled && p.visible && p.inViewport && p.hit;
    p.top = ready ? onTop((r.left + r.right) / 2, (r.top + r.bottom) / 2) : null;
    return p;
  }
  if (op === 'scroll') {
    el.scrollIntoView({ block: x || 'center', inline: 'nearest' });
    return true;
  }
  if (op === 'jsclick') {
    el.click();
    return true;
  }
  return onTop(x, y);
}
