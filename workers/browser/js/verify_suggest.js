// After typing into a field that suggests (role=combobox, aria-autocomplete, a datalist, or
// autocomplete=off as widget libraries set it): wait up to `ms` for visible elements to be
// added to the page (a suggestion list arriving after its debounce), so the next snapshot
// has it. Resolves with the number of visible elements added, 0 if none came, -1 when the
// field does not suggest. Called as ElementHandle.evaluate(el, ms).
(el, ms) => {
  const suggests = el.getAttribute('role') === 'combobox' || el.hasAttribute('aria-autocomplete')
    || el.hasAttribute('list') || (el.getAttribute('autocomplete') || '').toLowerCase() === 'off'
    || el.getAttribute('aria-haspopup') === 'listbox';
  if (!suggests) return -1;
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
