// After typing into a field that suggests (role=combobox, aria-autocomplete, a datalist, or
// autocomplete=off as widget libraries set it): wait up to `ms` for visible elements to be
// added to the page (a suggestion list arriving after its debounce), so the next snapshot
// has it. Resolves with the number of visible elements added, 0 if none came, -1 when the
// field does not suggest. autocomplete=off alone is only a hint (login and plain forms set
// it too): it counts when the field listens to typing itself (init.js `typed`) or the typing
// sent a request (`sent`). Called as ElementHandle.evaluate(el, { ms, sent }).
(el, { ms, sent }) => {
  const aria = el.getAttribute('role') === 'combobox' || el.hasAttribute('aria-autocomplete')
    || el.hasAttribute('list') || el.getAttribute('aria-haspopup') === 'listbox';
  const g = window.__webagent;
  const reacts = sent > 0 || !g || !g.typed || g.typed.has(el);
  const off = (el.getAttribute('autocomplete') || '').toLowerCase() === 'off';
  if (!aria && !(off && reacts)) return -1;
  const shown = (n) => n.nodeType === 1 && n.getClientRects().length > 0
    && getComputedStyle(n).visibility !== 'hidden';
  // a list shown by a style/class change (not a clock ticking elsewhere)
  const listy = (n) => n.matches('ul, ol, datalist, [role=listbox], [role=menu]') || !!n.querySelector('li, [role=option]');
  return new Promise((resolve) => {
    let added = 0;
    let timer = null;
    const done = () => { obs.disconnect(); clearTimeout(timer); resolve(added); };
    const obs = new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) if (shown(n) && !(n.closest && n.closest('[data-webagent-overlay]'))) added += 1;
        if (r.type === 'attributes' && r.target !== el && shown(r.target) && listy(r.target)) added += 1;
      }
      if (added) { clearTimeout(timer); timer = setTimeout(done, 50); }  // let the list finish
    });
    obs.observe(el.ownerDocument, { subtree: true, childList: true, attributes: true, attributeFilter: ['style', 'class', 'hidden'] });
    timer = setTimeout(done, ms);
  });
}
