// Option-like elements visible now (a custom dropdown's list after it was opened).
// With `wanted` (a label), returns the best match: exact text, else containing text.
(wanted) => {
  const SEL = '[role=option], [role=menuitem], [role=menuitemradio], [role=treeitem], ' +
    '[role=listbox] li, .ui-menu-item, [class*=option], [class*=dropdown] li, ' +
    '[class*=menu] li, [class*=suggest] li, [class*=autocomplete] li, [class*=result] li';
  const found = [];
  const visit = (root) => {
    for (const n of root.querySelectorAll(SEL)) {
      if (n.localName === 'option' || n.localName === 'select') continue;
      const r = n.getBoundingClientRect();
      if (r.width <= 0 || r.height <= 0) continue;
      if (n.checkVisibility && !n.checkVisibility({ visibilityProperty: true, opacityProperty: true })) continue;
      if (found.some((f) => f.contains(n))) continue;
      for (let i = found.length - 1; i >= 0; i--) if (n.contains(found[i])) found.splice(i, 1);
      found.push(n);
    }
    for (const h of root.querySelectorAll('*')) if (h.shadowRoot) visit(h.shadowRoot);
  };
  visit(document);
  const text = (n) => (n.innerText || n.textContent || '').replace(/\s+/g, ' ').trim();
  if (wanted === null || wanted === undefined) return found.map(text).filter(Boolean).slice(0, 100);
  const w = String(wanted).toLowerCase().trim();
  return found.find((n) => text(n).toLowerCase() === w)
    || found.find((n) => text(n).toLowerCase().includes(w)) || null;
}
