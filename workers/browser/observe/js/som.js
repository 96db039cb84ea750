// Dual-channel Set-of-Mark (seed 002): numbered tags drawn over the page for the vision
// model, and data-agent-id attributes on the same elements for the automation layer.
// op "tag": per frame, set data-agent-id on snapshot elements (window.__webagent.snap.els).
// op "draw": main frame, one fixed overlay root with a box per mark (solid numbered tags,
// "outline" tags without the yellow fill so colours stay readable, or dashed [Vn] anchors for
// the vision tier, seed 000 §4.3). op "clear": remove both channels.
// op "content": the viewport box [x, y, w, h] that holds the page's visible content (union of
// the visible leaf boxes, canvases, images and controls), so a mostly empty viewport can be
// cropped before the screenshot is scaled.
// The overlay is marked data-webagent-overlay so the change-gating counter ignores it.
(arg) => {
  const ROOT = 'webagent-som-root';
  const clearTags = () => {
    for (const el of document.querySelectorAll('[data-agent-id]')) el.removeAttribute('data-agent-id');
    const g = window.__webagent;
    if (g && g.snap) for (const el of g.snap.els) if (el && el.removeAttribute) el.removeAttribute('data-agent-id');
  };
  if (arg.op === 'tag') {
    const g = window.__webagent;
    if (!g || !g.snap || g.snap.version !== arg.version) return 0;
    let n = 0;
    for (const [local, id] of arg.marks) {
      const el = g.snap.els[local];
      if (el && el.isConnected && el.setAttribute) { el.setAttribute('data-agent-id', String(id)); n++; }
    }
    return n;
  }
  if (arg.op === 'content') {
    const vw = window.innerWidth, vh = window.innerHeight;
    let x0 = vw, y0 = vh, x1 = 0, y1 = 0, seen = 0;
    // an <svg> counts through its drawn shapes (it may be far larger than its drawing)
    const MEDIA = new Set(['IMG', 'CANVAS', 'VIDEO', 'INPUT', 'TEXTAREA', 'SELECT', 'BUTTON', 'IFRAME']);
    const shape = (el, st) => el instanceof SVGGraphicsElement && !(el instanceof SVGSVGElement) &&
      (st.fill !== 'none' || st.stroke !== 'none');
    const painted = (st) => st.backgroundImage !== 'none' || !/^(transparent|rgba\(0, 0, 0, 0\))$/.test(st.backgroundColor) ||
      parseFloat(st.borderTopWidth) > 0 || parseFloat(st.borderLeftWidth) > 0;
    const ownText = (el) => {
      for (const n of el.childNodes) if (n.nodeType === 3 && n.textContent.trim()) return true;
      return false;
    };
    const range = document.createRange();
    const textRect = (el) => {
      let a = Infinity, b = Infinity, c = -Infinity, d = -Infinity;
      for (const n of el.childNodes) {
        if (n.nodeType !== 3 || !n.textContent.trim()) continue;
        range.selectNodeContents(n);
        const q = range.getBoundingClientRect();
        a = Math.min(a, q.left); b = Math.min(b, q.top); c = Math.max(c, q.right); d = Math.max(d, q.bottom);
      }
      return { left: a, top: b, right: c, bottom: d, width: c - a, height: d - b };
    };
    const all = document.body ? document.body.getElementsByTagName('*') : [];
    for (let i = 0; i < all.length && i < 20000; i++) {
      const el = all[i];
      const media = MEDIA.has(el.tagName.toUpperCase());
      const text = !media && ownText(el);
      if (!media && !text && el.firstElementChild) continue;  // containers count through their leaves
      const r = text ? textRect(el) : el.getBoundingClientRect();  // a heading's text, not its full-width block
      if (r.width < 1 || r.height < 1 || r.right <= 0 || r.bottom <= 0 || r.left >= vw || r.top >= vh) continue;
      if (el.closest('[data-webagent-overlay]')) continue;
      if (el.checkVisibility && !el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
      const st = getComputedStyle(el);
      if (st.visibility === 'hidden' || st.opacity === '0') continue;
      if (!media && !text && !painted(st) && !shape(el, st)) continue;
      x0 = Math.min(x0, r.left); y0 = Math.min(y0, r.top);
      x1 = Math.max(x1, r.right); y1 = Math.max(y1, r.bottom); seen++;
    }
    if (!seen) return [0, 0, vw, vh];
    x0 = Math.max(0, x0); y0 = Math.max(0, y0); x1 = Math.min(vw, x1); y1 = Math.min(vh, y1);
    return [x0, y0, x1 - x0, y1 - y0];
  }
  if (arg.op === 'clear') {
    clearTags();
    const old = document.getElementById(ROOT);
    if (old) old.remove();
    return 0;
  }
  const old = document.getElementById(ROOT);
  if (old) old.remove();
  const root = document.createElement('div');
  root.id = ROOT;
  root.setAttribute('data-webagent-overlay', '');
  root.setAttribute('aria-hidden', 'true');
  root.style.cssText = 'position:fixed;left:0;top:0;width:0;height:0;z-index:2147483647;pointer-events:none;';
  const dashed = arg.style === 'anchors';
  const fill = arg.style === 'outline' ? '' : 'background:rgba(255,235,59,0.15);';
  const palette = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#008080', '#9a6324', '#800000'];
  // tags avoid other marks' boxes and tags already placed, so dense rows stay legible
  const placed = [];
  const meets = (a, b) => a[0] < b[0] + b[2] && b[0] < a[0] + a[2] && a[1] < b[1] + b[3] && b[1] < a[1] + a[3];
  const free = (r, self) => !placed.some((p) => meets(r, p)) &&
    !arg.marks.some((o, j) => j !== self && meets(r, o.box));
  const inView = (r) => r[0] >= 0 && r[1] >= 0 && r[0] + r[2] <= window.innerWidth && r[1] + r[3] <= window.innerHeight;
  arg.marks.forEach((m, i) => {
    // an outline sits just outside the element, so small swatches keep their own pixels
    const out = arg.style === 'outline' ? 2 : 0;
    const [x, y, w, h] = [m.box[0] - out, m.box[1] - out, m.box[2] + 2 * out, m.box[3] + 2 * out];
    const color = dashed ? palette[i % palette.length] : '#ff0000';
    const box = document.createElement('div');
    box.style.cssText = 'position:fixed;box-sizing:border-box;pointer-events:none;' +
      `left:${x}px;top:${y}px;width:${Math.max(w, 4)}px;height:${Math.max(h, 4)}px;` +
      (dashed ? `border:2px dashed ${color};` : `border:2px solid ${color};${fill}`);
    const tag = document.createElement('div');
    tag.textContent = m.label;
    // the tag goes above the box, else to its left, else below, else inside its corner:
    // the first of these that is on screen and free, else the first on screen
    const tagW = 6 * String(m.label).length + 5;
    // issue 26 item 6: a tag never sits inside a small control (it would hide it); the
    // right side is tried too, and the inside corner is left for large boxes only
    const small = w < 40 || h < 24;
    const spots = [
      [[x - 2, y - 15, tagW, 13], 'left:-2px;top:-15px;'],
      [[x - tagW, y - 2, tagW, 13], `left:-${tagW + 2}px;top:-2px;`],
      [[x + w + 2, y - 2, tagW, 13], 'left:calc(100% + 2px);top:-2px;'],
      [[x - 2, y + h, tagW, 13], 'left:-2px;top:100%;'],
    ];
    if (!small) spots.push([[x, y, tagW, 13], 'left:-2px;top:0;']);
    const spot = spots.find(([r]) => inView(r) && free(r, i)) || spots.find(([r]) => inView(r)) || spots[spots.length - 1];
    placed.push(spot[0]);
    tag.style.cssText = 'position:absolute;font:bold 11px/13px monospace;padding:0 2px;' +
      `color:#fff;background:${color};white-space:nowrap;` + spot[1];
    box.appendChild(tag);
    root.appendChild(box);
  });
  document.documentElement.appendChild(root);
  return arg.marks.length;
}
