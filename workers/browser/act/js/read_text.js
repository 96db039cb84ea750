// Visible text of an element (or the page's main content) as light markdown: headings,
// paragraphs, list items, links, table rows, image alts; open shadow roots included.
// `hidden`: private regions (a selector list, workers/browser/runtime/regions.py), never read.
(el, hidden) => {
  const root = el || document.querySelector('main, [role=main], article') || document.body;
  const priv = (n) => !!hidden && n.nodeType === 1 && n.matches(hidden);
  if (hidden && el && el.closest(hidden)) return '';
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head']);
  const BLOCK = /^(p|div|section|article|main|aside|header|footer|nav|form|fieldset|ul|ol|dl|dt|dd|table|tbody|thead|tfoot|tr|blockquote|pre|figure|figcaption|details|summary|address|h[1-6]|li|label)$/;
  const out = [];
  let line = '';
  const flush = () => { const t = line.replace(/[ \t]+/g, ' ').trim(); if (t) out.push(t); line = ''; };
  const visible = (n) => !n.checkVisibility || n.checkVisibility({ visibilityProperty: true, opacityProperty: true });
  // preformatted text and a text area keep their whitespace exactly (issue 27 item 6: "copy
  // this text exactly" needs its indentation and trailing newlines)
  const kept = (n) => {
    if (n.localName === 'textarea' || n.localName === 'pre') return true;
    if (n.localName === 'input') return false;
    const st = getComputedStyle(n);
    return /^(pre|pre-wrap|break-spaces)$/.test(st.whiteSpace) && !st.display.startsWith('inline');
  };
  const raw = (n) => (n.localName === 'textarea' ? n.value : n.innerText);
  if (el && kept(el)) return raw(el);
  const walk = (n) => {
    if (n.nodeType === 3) { line += n.nodeValue; return; }
    if (n.nodeType !== 1 && n.nodeType !== 11) return;
    if (n.nodeType === 1) {
      const tag = n.localName;
      if (SKIP.has(tag) || n.getAttribute('aria-hidden') === 'true' || !visible(n) || priv(n)) return;
      if (kept(n) && (tag !== 'textarea' || n.type !== 'hidden')) {
        flush();
        out.push(tag === 'textarea' ? `[textarea:]\n${raw(n)}\n[/textarea]` : raw(n));
        return;
      }
      if (tag === 'br') { flush(); return; }
      if (tag === 'img') { const a = n.getAttribute('alt'); if (a) line += ` ![${a}] `; return; }
      if (tag === 'input' || tag === 'textarea' || tag === 'select') {
        // a check box's value attribute ('on') is no state: checked/unchecked is (wave 5 item 1)
        const box = tag === 'input' && (n.type === 'checkbox' || n.type === 'radio');
        const v = box ? (n.checked ? 'checked' : 'unchecked') : tag === 'select' ? (n.selectedOptions[0] || {}).text || '' : n.value;
        if (n.type !== 'hidden' && n.type !== 'password') line += ` [${n.type || tag}: ${v || ''}] `;
        return;
      }
      const block = BLOCK.test(tag);
      if (block) flush();
      if (/^h[1-6]$/.test(tag)) line += '#'.repeat(+tag[1]) + ' ';
      if (tag === 'li') line += '- ';
      if (tag === 'a' && n.href && !n.href.startsWith('javascript:')) {
        const before = line; line = '';
        for (const c of (n.shadowRoot || n).childNodes) walk(c);
        const text = line.replace(/\s+/g, ' ').trim();
        line = before + (text ? ` [${text}](${n.getAttribute('href')}) ` : '');
        return;
      }
      if (tag === 'td' || tag === 'th') line += ' | ';
      for (const c of (n.shadowRoot || n).childNodes) walk(c);
      if (block) flush();
      return;
    }
    for (const c of n.childNodes) walk(c);
  };
  walk(root);
  flush();
  return out.join('\n');
}
