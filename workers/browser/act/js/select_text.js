// Select an exact text inside an element (or the page), as a person's selecting leaves it
// (relay finding 10: "select the words ..." needed a pixel drag with guessed letter widths).
// A text field (input, textarea) gets setSelectionRange; any other element a DOM Range over
// its text nodes, where runs of whitespace count as one space (markup and line breaks split
// the words), matched case-sensitively, else case-insensitively. The browser fires
// selectionchange (and `select` in a field) itself; mouseup is dispatched on the element
// that holds the selection's end, as after a drag. Called by ElementHandle.evaluate from
// selection.select_text with {text, occurrence}, or by Frame.evaluate with only that
// argument (the document's body); returns {found, selected, count, field}.
(a, b) => {
  const root = b === undefined ? (document.body || document.documentElement) : a;
  const { text, occurrence } = b === undefined ? a : b;
  const squash = (t) => t.replace(/\s+/g, ' ');
  const want = squash(text).trim();
  const nth = (hay, needle) => {
    const at = [];
    for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) at.push(i);
    return at;
  };
  const find = (hay) => {
    let at = nth(hay, want);
    if (!at.length) at = nth(hay.toLowerCase(), want.toLowerCase());
    return at;
  };
  const release = (el) => {
    const r = el.getBoundingClientRect();
    el.dispatchEvent(new MouseEvent('mouseup', { bubbles: true, cancelable: true, composed: true,
      view: window, button: 0, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2 }));
  };
  const field = root.localName === 'textarea' || (root.localName === 'input'
    && typeof root.setSelectionRange === 'function' && root.selectionStart !== null);
  if (field) {
    const at = find(root.value);
    if (at.length < occurrence) return { found: false, count: at.length, field: true };
    root.focus();
    root.setSelectionRange(at[occurrence - 1], at[occurrence - 1] + want.length);
    release(root);
    return { found: true, field: true, count: at.length,
      selected: root.value.slice(root.selectionStart, root.selectionEnd) };
  }
  // the element's visible text, whitespace runs squashed, each character mapped to its node
  const chars = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => {  // hidden text and our own overlays are no words to select
      const p = n.parentElement;
      const skip = !p || p.closest('script, style, noscript, template, [data-webagent-overlay]')
        || !p.getClientRects().length;
      return skip ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
    },
  });
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const t = n.nodeValue;
    for (let i = 0; i < t.length; i += 1) {
      const space = /\s/.test(t[i]);
      if (space && chars.length && chars[chars.length - 1].c === ' ') continue;
      chars.push({ c: space ? ' ' : t[i], node: n, off: i });
    }
  }
  const hay = chars.map((x) => x.c).join('');
  const at = find(hay);
  if (at.length < occurrence) return { found: false, count: at.length, field: false };
  const first = chars[at[occurrence - 1]], last = chars[at[occurrence - 1] + want.length - 1];
  const range = document.createRange();
  range.setStart(first.node, first.off);
  range.setEnd(last.node, last.off + 1);
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
  release(last.node.parentElement || root);
  return { found: true, field: false, count: at.length, selected: String(sel) };
}
