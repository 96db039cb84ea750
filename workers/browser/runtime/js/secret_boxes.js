// Secret-bearing elements painted black in every screenshot (issue 32, item 3; see
// runtime/secret_boxes.py). Elements carrying data-webagent-secret are painted solid black by
// one constructed style sheet adopted into the document and open shadow roots (nothing the
// page can see is added but the attribute; layout unchanged).
// Called as el.evaluate(js, {op: 'field'}): mark that element (a field a secret is typed into).
// Called as frame.evaluateHandle(js, {op: 'scan', texts}): mark every password input holding a
// value; with `texts`, also collect the value of every other field and the text of every
// element with text of its own, and return {texts, mark(hits)} so Python can decide which of
// them hold a secret (the secret never enters the page) and mark those; `mark` returns how
// many were not marked before.
(a, b) => {
  const ATTR = 'data-webagent-secret';
  const KEY = '__webagentSecretBoxes';
  const LONG = 600;  // a longer element contributes its own text only, not its descendants'
  const el = a instanceof Element ? a : null;
  const opts = (el ? b : a) || {};
  let sheet = window[KEY];
  if (!sheet) {
    sheet = new CSSStyleSheet();
    // black box and black text (filter), but a white `color`: the snapshot walk drops text of
    // no contrast as invisible, and the model still reads the element (its secret masked)
    sheet.insertRule('[' + ATTR + '] { filter: brightness(0) !important; background: #000 !important;'
      + ' color: #fff !important; -webkit-text-security: disc !important; }');
    Object.defineProperty(window, KEY, { value: sheet, configurable: false, enumerable: false, writable: false });
  }
  const adopt = (root) => {
    try {
      if (root && root.adoptedStyleSheets && !root.adoptedStyleSheets.includes(sheet)) {
        root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
      }
    } catch (e) { /* a root of another document: its own frame's scan paints it */ }
  };
  const mark = (node) => {  // true when the node was not marked before
    adopt(node.getRootNode());
    if (node.hasAttribute(ATTR)) return false;
    node.setAttribute(ATTR, '');
    return true;
  };
  if (el) { mark(el); return true; }
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'TITLE']);
  const FIELDS = new Set(['INPUT', 'TEXTAREA']);
  const found = [];
  const texts = [];
  const ownText = (node) => {
    let t = '';
    for (const c of node.childNodes) if (c.nodeType === 3) t += c.data;
    return t;
  };
  const visit = (node) => {
    if (FIELDS.has(node.tagName)) {
      const type = (node.getAttribute('type') || '').toLowerCase();
      if (type === 'hidden' || !node.value) return;
      if (type === 'password') { mark(node); return; }
      if (opts.texts) { found.push(node); texts.push(String(node.value)); }
      return;
    }
    if (!opts.texts || SKIP.has(node.tagName)) return;
    const own = ownText(node);
    if (!own.trim()) return;
    const all = node.textContent || '';
    found.push(node);
    texts.push(all.length > LONG ? own : all);
  };
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {
    for (const node of roots[i].querySelectorAll('*')) {
      visit(node);
      if (node.shadowRoot) roots.push(node.shadowRoot);
    }
  }
  adopt(document);
  if (!opts.texts) return 0;
  const markAll = (hits) => hits.filter((i) => found[i] && mark(found[i])).length;
  return { texts, mark: markAll };
}
