// Dual-channel Set-of-Mark (seed 002): numbered tags drawn over the page for the vision
// model, and data-agent-id attributes on the same elements for the automation layer.
// op "tag": per frame, set data-agent-id on snapshot elements (window.__webagent.snap.els).
// op "draw": main frame, one fixed overlay root with a box per mark (solid numbered tags, or
// dashed [Vn] anchors for the vision tier, seed 000 §4.3). op "clear": remove both channels.
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
  const palette = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#008080', '#9a6324', '#800000'];
  arg.marks.forEach((m, i) => {
    const [x, y, w, h] = m.box;
    const color = dashed ? palette[i % palette.length] : '#ff0000';
    const box = document.createElement('div');
    box.style.cssText = 'position:fixed;box-sizing:border-box;pointer-events:none;' +
      `left:${x}px;top:${y}px;width:${Math.max(w, 4)}px;height:${Math.max(h, 4)}px;` +
      (dashed ? `border:2px dashed ${color};` : `border:2px solid ${color};background:rgba(255,235,59,0.15);`);
    const tag = document.createElement('div');
    tag.textContent = m.label;
    const above = y >= 14;
    tag.style.cssText = 'position:absolute;left:-2px;font:bold 11px/13px monospace;padding:0 2px;' +
      `color:#fff;background:${color};white-space:nowrap;` + (above ? 'top:-15px;' : 'top:0;');
    box.appendChild(tag);
    root.appendChild(box);
  });
  document.documentElement.appendChild(root);
  return arg.marks.length;
}
