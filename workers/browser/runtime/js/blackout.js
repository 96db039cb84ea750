// Private regions (issue 12): paint every element matching one of `sels` solid black, without
// changing layout, in this document and in `roots` (shadow roots; all open ones when omitted).
// A constructed style sheet is adopted, so nothing is added to the DOM the page can see.
// Returns the selectors the browser rejects (the caller fails closed on any).
(sels, roots) => {
  const bad = [];
  const ok = [];
  const probe = document.createDocumentFragment();
  for (const s of sels || []) {
    try { probe.querySelector(s); ok.push(s); } catch (e) { bad.push(s); }
  }
  if (!ok.length || bad.length) return bad;
  const KEY = '__webagentBlackout';
  const key = ok.join('\u0000');
  let state = window[KEY];
  if (!state) {
    state = { sheet: new CSSStyleSheet(), key: '' };
    Object.defineProperty(window, KEY, { value: state, configurable: false, enumerable: false, writable: false });
  }
  if (state.key !== key) {
    // one rule per selector: insertRule takes exactly one rule, so a selector cannot add others
    while (state.sheet.cssRules.length) state.sheet.deleteRule(0);
    for (const s of ok) {
      state.sheet.insertRule(s + ' { filter: brightness(0) !important; background: #000 !important; }', state.sheet.cssRules.length);
    }
    state.key = key;
  }
  const adopt = (root) => {
    try {
      if (!root.adoptedStyleSheets.includes(state.sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, state.sheet];
    } catch (e) { /* a root of another document: its own frame's walk paints it */ }
  };
  adopt(document);
  if (roots) { for (const r of roots) adopt(r); return bad; }
  const walker = document.createTreeWalker(document.documentElement || document, NodeFilter.SHOW_ELEMENT);
  const open = [];
  for (let n = walker.currentNode; n; n = walker.nextNode()) if (n.shadowRoot) open.push(n.shadowRoot);
  while (open.length) {
    const root = open.pop();
    adopt(root);
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) open.push(el.shadowRoot);
  }
  return bad;
}
