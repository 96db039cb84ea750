// Page-state fingerprint for change gating (seed 000 §4.5): a DOM hash over the interactive
// element list (with a resized element's inline size), a text hash (and the selected text) with the scroll position in 100 px buckets, an iframe signature,
// a MutationObserver counter of added/removed nodes, and a per-document id. Hashes are cyrb53
// computed here (crypto.subtle is missing on insecure origins), so only digests cross to Python.
(arg) => {
  const KEY = '__webagentGate';
  const cyrb53 = (str, seed = 0) => {
    let h1 = 0xdeadbeef ^ seed, h2 = 0x41c6ce57 ^ seed;
    for (let i = 0; i < str.length; i++) {
      const ch = str.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16);
  };
  const install = (win) => {
    if (win[KEY]) return win[KEY];
    const state = { mutations: 0, doc: Math.random().toString(36).slice(2) };
    Object.defineProperty(win, KEY, { value: state, configurable: true, enumerable: false });
    try {
      const obs = new win.MutationObserver((records) => {
        // our own overlays (som.js) are marked and do not count as page mutations
        const own = (n) => n.nodeType === 1 && n.hasAttribute('data-webagent-overlay');
        for (const r of records) {
          for (const n of r.addedNodes) if (!own(n)) state.mutations++;
          for (const n of r.removedNodes) if (!own(n)) state.mutations++;
        }
      });
      obs.observe(win.document, { childList: true, subtree: true });
    } catch (e) { /* document not ready: counter stays at zero */ }
    return state;
  };
  const INTERACTIVE = 'a[href],button,input,select,textarea,summary,details,[role=button],' +
    '[role=link],[role=checkbox],[role=radio],[role=tab],[role=menuitem],[role=option],' +
    '[role=combobox],[role=switch],[role=textbox],[contenteditable=""],[contenteditable=true],' +
    '[onclick],[tabindex]:not([tabindex="-1"]),[aria-expanded],dialog,[role=dialog]';
  const roots = (doc) => {
    const out = [doc];
    for (let i = 0; i < out.length; i++) {
      for (const el of out[i].querySelectorAll('*')) if (el.shadowRoot) out.push(el.shadowRoot);
    }
    return out;
  };
  const elementSig = (el) => {
    const a = (n) => el.getAttribute(n) || '';
    const label = (a('aria-label') || (el.textContent || '').trim()).slice(0, 40);
    const value = 'value' in el && typeof el.value === 'string' ? el.value : '';
    const flags = (el.checked ? 'c' : '') + (el.disabled ? 'd' : '') + (el.open ? 'o' : '') +
      (el.ownerDocument.activeElement === el ? 'f' : '') + (el.style ? el.style.width + el.style.height : '');
    return [el.tagName, a('type'), a('role'), label, value, flags, a('aria-expanded'),
      a('aria-checked'), a('aria-selected'), a('aria-pressed'), a('aria-hidden')].join('\u0001');
  };
  const domSig = (doc) => {
    const hist = {};
    const parts = [];
    let count = 0;
    for (const root of roots(doc)) {
      for (const el of root.querySelectorAll(INTERACTIVE)) {
        count++;
        hist[el.tagName] = (hist[el.tagName] || 0) + 1;
        parts.push(elementSig(el));
      }
    }
    const tags = Object.keys(hist).sort().map((t) => t + hist[t]).join(',');
    return { count, digest: cyrb53(count + '|' + tags + '|' + parts.join('\u0002')) };
  };
  const frameSig = (doc) => {
    const parts = [];
    for (const f of doc.querySelectorAll('iframe,frame')) {
      const r = f.getBoundingClientRect();
      let inner = 'x';
      try {
        const d = f.contentDocument;
        if (d && d.documentElement) {
          const st = install(f.contentWindow);
          const text = d.body ? d.body.innerText || '' : '';
          inner = st.doc + ':' + st.mutations + ':' + domSig(d).digest + ':' + cyrb53(text);
        }
      } catch (e) { inner = 'cross-origin'; }
      parts.push([f.getAttribute('src') || '', Math.round(r.width), Math.round(r.height), inner].join('|'));
    }
    return cyrb53(parts.join('\u0002'));
  };
  const state = install(window);
  const bucket = Math.max(1, (arg && arg.bucket) || 100);
  const scroll = Math.floor(window.scrollX / bucket) + ',' + Math.floor(window.scrollY / bucket);
  const body = document.body;
  const sel = window.getSelection ? String(window.getSelection()).slice(0, 200) : '';
  const text = (body ? body.innerText || '' : '') + '\u0004' + sel;
  const dom = domSig(document);
  return {
    url: location.href,
    doc: state.doc,
    dom: dom.digest,
    interactive: dom.count,
    text: cyrb53(text + '\u0003' + scroll + '\u0003' + window.innerWidth + 'x' + window.innerHeight),
    frames: frameSig(document),
    mutations: state.mutations,
    // snapshot.js has not walked this document yet (snapshot.py first_look waits for it)
    fresh: !(window.__webagent && window.__webagent.snap),
  };
}
