// One-pass page walker run in every frame (page.evaluate / frame.evaluate).
// Emits visible text blocks, headings and interactive elements in composed-tree
// order (open + closed shadow roots, slots), drops text a person cannot see, and keeps
// element handles in window.__webagent.snap so refs can be resolved for actions.
// Spec: seed 003 §4.2/§5.1 (refs), seed 002 (interactive selectors), seed 001 A.1.3.
// Issue 7 (observation fidelity): nested controls keep their own refs (class 1), toggle
// state from ARIA and state classes (3), roles from behaviour and icon names (4, 8), labels
// by layout (5), cut text reports its full length (9), grid cells carry row/column (10).
// Issue 12: an aria-label that differs from the visible text does not replace it (both shown);
// private regions (`args.hidden`, selectors) are skipped and painted black (js/blackout.js).
// `iconName` is js/icon_name.js, `blackout` js/blackout.js and `detectModal` js/modal.js,
// passed in by frames.py; the main frame's walk also reports the open modal (seed 001 A.4).
(args, iconName, blackout, detectModal, layoutMarks) => {
  const t0 = performance.now();
  const KEY = '__webagent';
  if (!window[KEY]) {
    Object.defineProperty(window, KEY, {
      value: { closed: new WeakMap(), listeners: new WeakSet(), frameIds: new WeakMap(), snap: null, checked: new WeakSet(), cands: [] },
      configurable: false, enumerable: false, writable: false,
    });
  }
  const g = window[KEY];
  if (!g.checked) { g.checked = new WeakSet(); g.cands = []; }
  if (!g.drops) g.drops = new WeakSet();
  // wave 5b: nameless things a person would aim at get a line, capped per snapshot
  const MAX_CANVAS = 6, MAX_DOTS = 12;
  let canvases = 0, dots = 0;
  // private regions: never walked, never used for a name, painted black for screenshots
  const HIDDEN = args.hidden && args.hidden.length ? args.hidden : null;
  if (HIDDEN) {
    const bad = blackout(HIDDEN, []);
    if (bad.length) return JSON.stringify({ badHidden: bad });
  }
  const HID = HIDDEN ? HIDDEN.join(', ') : null;
  const painted = new Set();
  const isPrivate = (n) => HID !== null && !!n && typeof n.closest === 'function' && !!n.closest(HID);
  const cands = [];
  const delegated = delegatedTargets();
  const MAX_TEXT = args.maxText || 2000;
  const SAMPLES = 5;
  const vw = window.innerWidth, vh = window.innerHeight;
  const sx = window.scrollX, sy = window.scrollY;
  const de = document.documentElement;
  const body = document.body;
  const docW = Math.max(de ? de.scrollWidth : 0, body ? body.scrollWidth : 0, vw);
  const docH = Math.max(de ? de.scrollHeight : 0, body ? body.scrollHeight : 0, vh);
  const els = [];
  const nodes = [];
  const frames = [];
  const dropped = { count: 0, reasons: {}, samples: [] };
  let visited = 0;
  let heading = '';
  let listSeq = 0;
  const range = document.createRange();

  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base', 'param', 'source', 'track', 'datalist']);
  const ROLES = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'combobox', 'textbox', 'searchbox', 'slider', 'spinbutton', 'listbox', 'treeitem', 'gridcell']);
  const LISTENER_ATTRS = ['onclick', 'onmousedown', 'onmouseup', 'onpointerdown', 'onpointerup', 'ondblclick'];
  const NAME_FROM_CONTENT = new Set(['button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem',
    'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'gridcell', 'heading', 'generic', 'summary']);
  const LANDMARK_TAGS = { nav: 'navigation', main: 'main', header: 'header', footer: 'footer', aside: 'complementary', form: 'form', dialog: 'dialog', search: 'search', article: 'article' };
  const LANDMARK_ROLES = new Set(['navigation', 'main', 'banner', 'contentinfo', 'complementary', 'form', 'dialog', 'alertdialog', 'search', 'region', 'article']);
  // items of a container widget whose children carry no role of their own (class 1)
  const ITEM_ROLE = { listbox: 'option', menu: 'menuitem', menubar: 'menuitem', tablist: 'tab', tree: 'treeitem', radiogroup: 'radio' };
  const itemRoles = new WeakMap();
  // state words from class names (class 3): `is-active` -> active, `liked`, `on`, ...
  const STATE_CLASS = /^(?:is-|has-)?(active|selected|checked|liked|on|pressed|toggled|starred|favorited|current)$/;
  const FIELDS = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'listbox', 'slider', 'date', 'time', 'datetime-local', 'month', 'week', 'checkbox', 'radio', 'switch']);
  let gridSeq = 0;
  const INLINE = new Set(['inline', 'inline-block', 'inline-flex', 'inline-grid', 'contents', 'ruby', 'inline-table']);

  const squash = (s) => unicodeText.whole(s.replace(/\s+/g, ' ').trim());
  const NUMBER = /^-?\d+(?:[.,]\d+)?%?$/;
  const clip = (s, n) => unicodeText.clip(s, n);
  // cut without an ellipsis; the node records `full` and compact.py writes the read_text marker
  const cut = (node, s, n) => { if (s.length > n) { node.full = unicodeText.count(s); return unicodeText.cut(s, n); } return s; };

  function drop(reason, text) {
    dropped.count += 1;
    dropped.reasons[reason] = (dropped.reasons[reason] || 0) + 1;
    if (text && reason !== 'private' && dropped.samples.length < SAMPLES * 4) {
      const t = clip(squash(text), 60);
      if (t) dropped.samples.push([reason, t]);
    }
  }

  function parseColor(c) {
    const m = /^rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?\)$/.exec(c);
    if (!m) return null;
    return [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]];
  }
  function blend(top, under) {
    const a = top[3];
    return [top[0] * a + under[0] * (1 - a), top[1] * a + under[1] * (1 - a), top[2] * a + under[2] * (1 - a), 1];
  }
  function luminance(c) {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  }
  function contrast(a, b) {
    const la = luminance(a), lb = luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  }
  function zeroClipPath(cp) {
    if (!cp || cp === 'none') return false;
    if (/^inset\(\s*50%/.test(cp) || /^inset\(\s*100%/.test(cp)) return true;
    if (/^circle\(\s*0(px|%)?[\s)]/.test(cp)) return true;
    return /^polygon\(\s*0(px)?\s+0(px)?\s*(,\s*0(px)?\s+0(px)?\s*)*\)$/.test(cp);
  }
  function zeroClip(st) {
    if (st.clip === 'auto' || !st.clip || (st.position !== 'absolute' && st.position !== 'fixed')) return false;
    const m = /rect\(([-\d.]+)px,?\s*([-\d.]+)px,?\s*([-\d.]+)px,?\s*([-\d.]+)px\)/.exec(st.clip);
    return !!m && (+m[3] - +m[1] <= 1 || +m[2] - +m[4] <= 1);
  }
  function intersect(a, b) {
    if (!a) return b;
    const l = Math.max(a[0], b[0]), t = Math.max(a[1], b[1]);
    const r = Math.min(a[2], b[2]), btm = Math.min(a[3], b[3]);
    return [l, t, Math.max(l, r), Math.max(t, btm)];
  }
  const emptyBox = (b) => b[2] - b[0] < 1 || b[3] - b[1] < 1;
  function offDocument(r) {
    return r.right + sx <= 0 || r.bottom + sy <= 0 || r.left + sx >= docW || r.top + sy >= docH;
  }
  // inside a scroll box, content scrolled out past its top/left edge is still there (wave 5
  // item 2: a day calendar's morning hours): off only when before the box's scroll origin
  const offDoc = (r, ctx) => (ctx.origin ? r.right <= ctx.origin[0] || r.bottom <= ctx.origin[1] : offDocument(r));
  const inView = (r) => r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
  // in the viewport and inside every scroll container's visible area (ctx.view)
  const seen = (r, view) => inView(r) && (!view || !emptyBox(intersect(view, [r.left, r.top, r.right, r.bottom])));

  // jQuery delegated handlers ($(document).on('click', '.x', fn)) live on an ancestor; the
  // selectors are public through jQuery._data, so their current targets count as listened.
  function delegatedTargets() {
    const out = new Set();
    const jq = window.jQuery;
    if (!jq || typeof jq._data !== 'function') return out;
    for (const root of [document, document.documentElement, document.body]) {
      let events = null;
      try { events = root && jq._data(root, 'events'); } catch (e) { events = null; }
      if (!events) continue;
      for (const type of ['click', 'mousedown', 'mouseup', 'pointerdown', 'dblclick']) {
        for (const h of events[type] || []) {
          if (!h || !h.selector) continue;
          try { for (const el of root.querySelectorAll(h.selector)) if (out.size < 2000) out.add(el); } catch (e) { /* jQuery-only selector */ }
        }
      }
    }
    return out;
  }
  // Empty elements that still take space may be hosts of declarative closed shadow roots
  // (invisible to page JS); frames.py checks only these over CDP instead of the whole DOM.
  const NOT_HOST = new Set(['img', 'input', 'textarea', 'select', 'button', 'iframe', 'frame', 'video', 'audio', 'canvas', 'svg',
    'br', 'hr', 'embed', 'object', 'a', 'i', 'td', 'th', 'li', 'tr', 'picture', 'progress', 'meter', 'wbr', 'area', 'map']);
  function hostCandidate(el, tag, st) {
    if (el.firstElementChild || NOT_HOST.has(tag) || g.checked.has(el) || g.closed.get(el) || el.shadowRoot || cands.length >= 64) return;
    if (/\S/.test(el.textContent) || st.backgroundImage !== 'none') return;
    const r = el.getBoundingClientRect();
    if (r.width >= 8 && r.height >= 8) { g.checked.add(el); cands.push(el); }
  }
  // Nameless listener-backed controls (icon spans, calendar cells): a hint from id/class.
  // A listener on a list container (no jQuery: e.target.closest('li')) acts for its items:
  // same-tag children with text become the controls instead of the container.
  // A container widget (listbox, menu, tablist...) whose items carry no role of their own
  // does the same: its items become options/menuitems/tabs with refs of their own (class 1).
  function delegatesToItems(el, role) {
    const itemRole = ITEM_ROLE[role];
    if (!(itemRole || g.listeners.has(el) || el.onclick) || el.children.length < 2) return false;
    const kid = el.firstElementChild.localName;
    for (const k of el.children) if (k.localName !== kid || !/\S/.test(k.textContent)) return false;
    if (itemRole) for (const k of el.children) if (k.hasAttribute('role')) return false;
    for (const k of el.children) { delegated.add(k); if (itemRole) itemRoles.set(k, itemRole); }
    return true;
  }
  // Navigates -> link, activates -> button (class 4): script-driven controls without a role.
  function navigates(el) {
    const on = el.getAttribute('onclick') || '';
    if (/location|window\.open|href\s*=|navigate|router/i.test(on)) return true;
    if (el.hasAttribute('data-href') || el.hasAttribute('data-url') || el.hasAttribute('data-link')) return true;
    const cls = typeof el.className === 'string' ? el.className : '';
    return /(^|[\s_-])a?link($|[\s_-])/i.test(cls) || getComputedStyle(el).textDecorationLine.includes('underline');
  }
  // Name of a control without text: a descendant's alt/aria-label/title, else an icon class.
  function iconText(el) {
    let n = 0, icon = '';
    const tip = squash(el.getAttribute('data-tooltip') || el.getAttribute('data-title') || el.getAttribute('data-original-title') || el.getAttribute('data-tip') || '');
    if (tip) return tip;
    const svgTitle = el.querySelector('svg > title');
    if (svgTitle && squash(svgTitle.textContent || '')) return squash(svgTitle.textContent);
    for (const d of el.querySelectorAll('[alt],[aria-label],[title],[class]')) {
      if (++n > 30) break;
      if (isPrivate(d)) continue;
      const t = squash(d.getAttribute('alt') || d.getAttribute('aria-label') || d.getAttribute('title') || '');
      if (t) return t;
      if (!icon) icon = iconName(d);
    }
    // a picker's label names nothing itself: its wrapper's class does (ql-picker ql-header)
    const up = el.parentElement;
    return icon || iconName(el) || (up && up.firstElementChild === el && !/\S/.test(up.textContent) ? iconName(up) : '');
  }
  function classStates(el) {
    const out = [];
    const look = (c) => { for (const t of c.split(/\s+/)) { const m = STATE_CLASS.exec(t); if (m && !out.includes(m[1])) out.push(m[1]); } };
    const own = el.getAttribute('class');
    if (own) look(own);
    let n = 0;
    for (const d of el.querySelectorAll('[class]')) { if (++n > 10) break; look(d.getAttribute('class')); }
    return out;
  }
  // Issue 26 item 3: class names are never names (utility CSS such as "w-full h-full"); the
  // last resort is the id's words when it reads as words, else nothing (the line says `icon`).
  function hintOf(el) {
    const id = el.id && el.id.length < 30 && /^[A-Za-z][A-Za-z_-]*[A-Za-z]$/.test(el.id) ? el.id : '';
    return squash(id.replace(/[_-]+/g, ' '));
  }

  function roleOf(el, tag) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit && explicit !== 'presentation' && explicit !== 'none') return explicit;
    // a jQuery-UI-style slider handle (no ARIA role): a slider, not a bare button
    if (el.classList && el.classList.contains('ui-slider-handle')) return 'slider';
    switch (tag) {
      case 'a': return el.hasAttribute('href') ? 'link' : '';
      case 'button': return 'button';
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'textarea': return 'textbox';
      case 'summary': return 'button';
      case 'option': return 'option';
      case 'input': {
        const t = (el.type || 'text').toLowerCase();
        if (t === 'hidden') return '';
        if (['button', 'submit', 'reset', 'image', 'file', 'color'].includes(t)) return 'button';
        if (t === 'checkbox') return el.getAttribute('switch') !== null ? 'switch' : 'checkbox';
        if (t === 'radio') return 'radio';
        if (t === 'range') return 'slider';
        if (t === 'number') return 'spinbutton';
        if (t === 'search') return 'searchbox';
        if (['date', 'time', 'datetime-local', 'month', 'week'].includes(t)) return t;
        return 'textbox';
      }
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      default: return el.isContentEditable && el.getAttribute('contenteditable') !== null ? 'textbox' : '';
    }
  }

  // 0 = not interactive, 1 = strong signal (tag/role/attr), 2 = weak (cursor/listener only)
  function interactiveLevel(el, tag, role, st, parentCursor) {
    if (role && ROLES.has(role)) return 1;
    if (tag === 'a' && el.hasAttribute('href')) return 1;
    if (['button', 'select', 'textarea', 'summary'].includes(tag)) return 1;
    if (tag === 'input' && el.type !== 'hidden') return 1;
    if (el.hasAttributes()) {  // most nodes have none: skip eight attribute look-ups
      if (el.getAttribute('contenteditable') !== null && el.isContentEditable) return 1;
      for (const a of LISTENER_ATTRS) if (el.hasAttribute(a)) return 1;
      const ti = el.getAttribute('tabindex');
      if (ti !== null && +ti >= 0 && tag !== 'body' && tag !== 'html') return 1;
    }
    if (tag === 'html' || tag === 'body') return 0;
    if (dropZone(el) || el.getAttribute('draggable') === 'true') return 2;
    if (el.onclick || el.onmousedown || g.listeners.has(el) || delegated.has(el)) return 2;
    // <a> without href (not a named anchor): a scripted control whose handler usually sits on
    // a root (React/Vue delegation), e.g. icon menu toggles, share buttons, "More" tabs
    if (tag === 'a' && !el.hasAttribute('name')) return 2;
    if (st.cursor === 'pointer' && parentCursor !== 'pointer') return 2;
    return 0;
  }

  const dropZone = (el) => g.drops.has(el) || el.hasAttribute('ondrop') || el.hasAttribute('ondragover');
  function dragStates(el, states) {
    if (dropZone(el)) states.push('drop target');
    else if (el.getAttribute('draggable') === 'true') states.push('draggable');
    return states;
  }

  function idText(id, root) {
    const t = root.getElementById ? root.getElementById(id) : document.getElementById(id);
    return t && !isPrivate(t) ? squash(t.textContent || '') : '';
  }
  function labelText(label) {
    let out = '';
    const walk = (n) => {
      for (const c of n.childNodes) {
        if (c.nodeType === 3) out += c.data;
        else if (c.nodeType === 1 && !['input', 'select', 'textarea', 'button', 'script', 'style'].includes(c.localName)) walk(c);
      }
    };
    walk(label);
    return squash(out);
  }
  function nameOf(el, tag, role, content) {
    const root = el.getRootNode();
    const lb = el.getAttribute('aria-labelledby');
    if (lb) {
      const t = squash(lb.split(/\s+/).map((id) => idText(id, root)).join(' '));
      if (t) return t;
    }
    const al = squash(el.getAttribute('aria-label') || '');
    if (al) return al;
    if (tag === 'input' || tag === 'select' || tag === 'textarea') {
      const type = (el.type || '').toLowerCase();
      if (['button', 'submit', 'reset'].includes(type)) return el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
      if (type === 'image') return el.alt || el.title || 'Submit';
      if (el.labels && el.labels.length) {
        const t = squash(Array.from(el.labels).filter((l) => !isPrivate(l)).map(labelText).join(' '));
        if (t) return t;
      }
    }
    if (tag === 'img') return squash(el.alt || el.title || '');
    if (content && (NAME_FROM_CONTENT.has(role) || !role)) return content;
    const extra = el.title || el.placeholder || el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || '';
    return squash(extra);
  }
  function valueOf(el, tag, role) {
    if (tag === 'select') {
      return Array.from(el.selectedOptions || []).map((o) => squash(o.label || o.text)).join(', ');
    }
    if (tag === 'input') {
      const t = (el.type || 'text').toLowerCase();
      if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file'].includes(t)) {
        return t === 'file' && el.files && el.files.length ? Array.from(el.files).map((f) => f.name).join(', ') : null;
      }
      if (t === 'password') return el.value ? '•'.repeat(Math.min(el.value.length, 8)) : null;
      if (t === 'range') return `${el.value} (${el.min || 0}..${el.max || 100})`;
      return el.value ? el.value : null;
    }
    if (tag === 'textarea') return el.value ? el.value : null;
    if (role === 'slider' && !el.hasAttribute('aria-valuenow')) return handleValue(el);
    if (role === 'slider' || role === 'spinbutton') return el.getAttribute('aria-valuenow');
    if (role === 'textbox' || role === 'combobox' || role === 'searchbox') {
      return el.isContentEditable ? richValue(el) || null : el.getAttribute('aria-valuetext');
    }
    return null;
  }
  // Issue 26 item 4: rich text keeps its formatting as marks a model can check: **bold**,
  // _italic_, __underline__, ~~struck~~ (from tags or computed style), else plain text
  function richValue(el) {
    let out = '', n = 0;
    const mark = (st) => {
      let m = '';
      if (+st.fontWeight >= 600) m += '**';
      if (st.fontStyle === 'italic') m += '_';
      if (st.textDecorationLine.includes('underline')) m += '__';
      if (st.textDecorationLine.includes('line-through')) m += '~~';
      return m;
    };
    const base = mark(getComputedStyle(el));
    const walkRich = (node, outer) => {
      for (const c of node.childNodes) {
        if (++n > 500) return;
        if (c.nodeType === 3) { out += c.data; continue; }
        if (c.nodeType !== 1) continue;
        if (c.localName === 'br') { out += ' '; continue; }
        const st = getComputedStyle(c);
        if (st.display === 'none') continue;
        const m = mark(st);
        const add = m === outer || m === base ? '' : m;
        const open = out.length;
        walkRich(c, m);
        if (!add || !/\S/.test(out.slice(open))) { if (!INLINE.has(st.display)) out += ' '; continue; }
        const inner = out.slice(open);
        const lead = /^\s*/.exec(inner)[0], trail = /\s*$/.exec(inner)[0];
        out = out.slice(0, open) + lead + add + inner.trim() + add.split('').reverse().join('') + trail;
        if (!INLINE.has(st.display)) out += ' ';
      }
    };
    walkRich(el, base);
    return squash(out);
  }
  // Issue 26 item 4: a nameless control's colour (a palette cell, a disk, a filled square)
  // as a colour word; white and transparent say nothing
  const COLOURS = [['black', [0, 0, 0]], ['gray', [128, 128, 128]], ['silver', [192, 192, 192]], ['red', [220, 30, 30]],
    ['orange', [255, 140, 0]], ['yellow', [240, 220, 30]], ['green', [30, 160, 50]], ['lime', [120, 230, 60]], ['cyan', [30, 200, 220]],
    ['blue', [30, 60, 220]], ['navy', [10, 20, 110]], ['purple', [130, 40, 170]], ['pink', [240, 120, 180]], ['brown', [130, 70, 20]]];
  function fillOf(el) {
    const c = parseColor(getComputedStyle(el).backgroundColor);
    if (!c || c[3] < 0.5 || (c[0] > 235 && c[1] > 235 && c[2] > 235)) return '';
    let best = '', d = Infinity;
    for (const [name, [r, g2, b]] of COLOURS) {
      const e = (c[0] - r) ** 2 + (c[1] - g2) ** 2 + (c[2] - b) ** 2;
      if (e < d) { d = e; best = name; }
    }
    return best;
  }
  // Issue 26 item 2: a select's options in the text (a listbox's first 10, a drop-down's
  // first 6) with their count, so option names need no screenshot
  function selectOptions(el, role) {
    const opts = Array.from(el.options || []).filter((o) => !o.hidden);
    if (!opts.length) return '';
    const n = role === 'listbox' ? 10 : 6;
    const names = opts.slice(0, n).map((o) => clip(squash(o.label || o.text), 30)).join(' | ');
    return opts.length > n ? `${names} | …(${opts.length} in all)` : names;
  }
  // A role-less slider handle's value: the widget's own (jQuery UI keeps it on the track's
  // instance), else its position as a percentage; the value text beside it is matched later.
  function handleValue(el) {
    const track = el.parentElement;
    const $ = window.jQuery;
    let inst = null;
    try { inst = track && $ && $.data ? $.data(track, 'ui-slider') || $.data(track, 'slider') : null; } catch (e) { inst = null; }
    const o = inst && inst.options;
    if (o && typeof o.value === 'number') {
      const handles = track.querySelectorAll('.ui-slider-handle');
      const i = Array.prototype.indexOf.call(handles, el);
      const v = Array.isArray(o.values) && o.values.length > i && i >= 0 ? o.values[i] : o.value;
      return `${v} (${o.min}..${o.max})`;
    }
    const pos = el.style.left || el.style.bottom;
    return /^-?[\d.]+%$/.test(pos) ? `${Math.round(parseFloat(pos))}%` : null;
  }
  // a pager's page link whose item is marked (`li.page-item.active > a`): the current page
  function pagerCurrent(el) {
    let a = el.parentElement;
    for (let i = 0; i < 2 && a && a !== document.body; i++, a = a.parentElement) {
      const cls = typeof a.className === 'string' ? a.className : '';
      if (/(?:^|\s)(?:is-)?(?:active|current|selected)(?:\s|$)/.test(cls)) return a.querySelectorAll('a,button').length === 1;
    }
    return false;
  }
  // a page number shown as plain text among page-number links is the current page
  function pagerText() {
    const num = (n) => n && /^\d{1,4}$/.test(n.name);
    for (let i = 0; i < nodes.length; i++) {
      const n = nodes[i];
      if (n.role !== 'text' || !num(n)) continue;
      const link = (o) => o && o.role === 'link' && num(o);
      if (link(nodes[i - 1]) || link(nodes[i + 1])) n.name += ' (current)';
    }
  }
  function deepActive() {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    const closed = a && g.closed.get(a);
    if (closed && closed.activeElement) a = closed.activeElement;
    return a;
  }
  const active = deepActive();
  function statesOf(el, tag, role) {
    const s = [];
    const aria = (n) => el.getAttribute(n);
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) {
      if (el.indeterminate) s.push('mixed'); else if (el.checked) s.push('checked');
    } else if (aria('aria-checked') === 'true') s.push('checked');
    else if (aria('aria-checked') === 'mixed') s.push('mixed');
    if (aria('aria-pressed') === 'true') s.push('pressed');
    const cur = aria('aria-current');
    if (cur && cur !== 'false') s.push('current');
    const ex = aria('aria-expanded');
    if (ex === 'true') s.push('expanded'); else if (ex === 'false') s.push('collapsed');
    if (tag === 'summary' && el.parentElement && el.parentElement.localName === 'details') s.push(el.parentElement.open ? 'expanded' : 'collapsed');
    if (aria('aria-selected') === 'true' || (tag === 'option' && el.selected)) s.push('selected');
    if (aria('aria-disabled') === 'true' || (typeof el.matches === 'function' && el.matches(':disabled'))) s.push('disabled');
    if (el.required || aria('aria-required') === 'true') s.push('required');
    if (aria('aria-invalid') === 'true' || el.matches(':user-invalid')) s.push('invalid');
    if (el.readOnly && (tag === 'input' || tag === 'textarea')) s.push('readonly');
    for (const w of classStates(el)) if (!s.includes(w)) s.push(w);
    if (role === 'link' && !s.includes('current') && pagerCurrent(el)) s.push('current');
    if (el === active) s.push('focused');
    // Issue 26 item 4: a resizable element the person (or a script) resized says its size
    if ((el.style && (el.style.width || el.style.height) && getComputedStyle(el).resize !== 'none') || el.classList.contains('ui-resizable')) {
      const r = el.getBoundingClientRect();
      s.push(`size ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
    return s;
  }

  // Text collectors: text inside an interactive element/heading names it; elsewhere it
  // accumulates into a block line flushed at block boundaries.
  const collectors = [];
  let block = null;
  let blockEl = null;  // innermost block-level element being walked: a cut text's read_text target
  let blockAbs = null;  // ... when it is absolutely positioned (laid over other content)
  function newBlock(ctx) { return { el: blockEl, abs: blockAbs, keep: keepsSpace(blockEl), text: '', box: null, landmark: ctx.landmark, list: ctx.list, item: ctx.item, view: ctx.view, grid: ctx.grid, row: ctx.row, col: ctx.col }; }
  // Relay 2026-11-27 finding 7: text laid out with its whitespace (<pre>, a code block,
  // white-space pre / pre-wrap / break-spaces) keeps its newlines and indentation, which a
  // copy task needs; each of its lines is a line of the text, trailing spaces trimmed.
  function keepsSpace(el) {
    return !!el && /^(pre|pre-wrap|break-spaces)$/.test(getComputedStyle(el).whiteSpace);
  }
  function keptLines(text) {
    const lines = text.replace(/\r\n?/g, '\n').split('\n').map((l) => unicodeText.whole(l.replace(/\s+$/, '')));
    while (lines.length && !lines[0]) lines.shift();
    while (lines.length && !lines[lines.length - 1]) lines.pop();
    return lines.join('\n');
  }
  function flush() {
    if (!block) return;
    const text = block.keep ? keptLines(block.text) : squash(block.text);
    if (text) {
      const b = block.box;
      const node = { id: -1, role: 'text', name: '', value: null, states: [], bbox: [b[0], b[1], b[2] - b[0], b[3] - b[1]],
        inView: seen({ left: b[0], top: b[1], right: b[2], bottom: b[3] }, block.view), interactive: false, level: 0, landmark: block.landmark,
        heading, list: block.list, item: block.item, tag: '', grid: block.grid, row: block.row, col: block.col };
      node.name = cut(node, text, MAX_TEXT);
      if (block.abs) { const r = block.abs.getBoundingClientRect(); node.span = [r.top, r.bottom]; }
      // text cut short (here or by compact.py's line cap) stays readable through its ref
      if (block.el && text.length > (args.cutOver || 200)) { node.id = els.length; els.push(block.el); }
      nodes.push(node);
    }
    block = null;
  }
  function addText(text, r, ctx) {
    if (collectors.length) {
      const c = collectors[collectors.length - 1];
      c.text += text;
      return;
    }
    if (!block) {
      if (!r) return;
      block = newBlock(ctx);
    }
    block.text += text;
    if (!r) return;
    const b = [r.left, r.top, r.right, r.bottom];
    block.box = block.box ? [Math.min(block.box[0], b[0]), Math.min(block.box[1], b[1]), Math.max(block.box[2], b[2]), Math.max(block.box[3], b[3])] : b;
  }

  function textNode(t, ctx) {
    const raw = t.data;
    if (!raw || !/\S/.test(raw)) {
      if (raw && (collectors.length || block)) addText(block && block.keep && !collectors.length ? raw : ' ', null, ctx);
      return;
    }
    if (ctx.visHidden) return drop('visibility', raw);
    if (ctx.transparent) return drop('transparent', raw);
    if (ctx.bg && ctx.color && contrast(ctx.color, ctx.bg) < 1.1) return drop('contrast', raw);
    range.selectNodeContents(t);
    const r = range.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) return drop('size', raw);
    if (offDoc(r, ctx)) return drop('offscreen', raw);
    if (ctx.clip && emptyBox(intersect(ctx.clip, [r.left, r.top, r.right, r.bottom]))) return drop('clipped', raw);
    addText(raw, r, ctx);
  }

  function listInfo(el) {
    const kids = el.children;
    if (kids.length < 4) return null;
    const counts = new Map();
    for (const k of kids) {
      const sig = k.localName + '.' + (typeof k.className === 'string' ? k.className : '');
      counts.set(sig, (counts.get(sig) || 0) + 1);
    }
    let best = null, n = 0;
    for (const [sig, c] of counts) if (c > n) { best = sig; n = c; }
    if (n < 4 || n * 2 < kids.length) return null;
    return { id: 'L' + (++listSeq), sig: best };
  }

  function landmarkOf(el, tag, role) {
    let lm = LANDMARK_ROLES.has(role) ? role : LANDMARK_TAGS[tag] || '';
    if (!lm && tag === 'section' && (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby'))) lm = 'region';
    if (!lm) return '';
    const label = squash(el.getAttribute('aria-label') || '');
    return label ? lm + ' "' + clip(label, 40) + '"' : lm;
  }

  function children(el) {
    const root = el.shadowRoot || g.closed.get(el);
    if (root) return root.childNodes;
    if (el.localName === 'slot') {
      const assigned = el.assignedNodes({ flatten: true });
      return assigned.length ? assigned : el.childNodes;
    }
    return el.childNodes;
  }

  function walkChildren(el, ctx) {
    // the cells of a table row are columns, not a list (a weekend class must not split a week)
    const row = el.localName === 'tr' || (el.getAttribute && el.getAttribute('role') === 'row');
    const info = el.nodeType === 1 && !el.shadowRoot && !g.closed.get(el) && !row ? listInfo(el) : null;
    let item = 0;
    // a closed <details> shows only its first <summary>; the body is not rendered
    const closedDetails = el.localName === 'details' && !el.open;
    let summary = false;
    for (const c of children(el)) {
      if (closedDetails) {
        if (!summary && c.nodeType === 1 && c.localName === 'summary') { summary = true; walk(c, ctx); }
        else if (c.nodeType === 1 || c.nodeType === 3) drop('details', c.textContent);
        continue;
      }
      if (c.nodeType === 3) textNode(c, ctx);
      else if (c.nodeType === 1) {
        if (info && c.localName + '.' + (typeof c.className === 'string' ? c.className : '') === info.sig) {
          walk(c, Object.assign({}, ctx, { list: info.id, item: ++item }));
        } else walk(c, ctx);
      }
    }
  }

  const NATIVE = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary']);
  const STRONG = 'a[href],button,input:not([type=hidden]),select,textarea,summary,[role=button],[role=link],[onclick],[tabindex]:not([tabindex="-1"])';

  function walk(el, ctx) {
    const tag = el.localName;
    if (SKIP.has(tag)) return;
    visited += 1;
    if (HID !== null && el.matches(HID)) {
      const root = el.getRootNode();
      if (root !== document && !painted.has(root)) { painted.add(root); blackout(HIDDEN, [root]); }
      return drop('private', '');
    }
    if (el.getAttribute('aria-hidden') === 'true') return drop('aria-hidden', el.textContent);
    if (el.hasAttribute('inert')) return drop('inert', el.textContent);
    const st = getComputedStyle(el);
    const display = st.display;
    if (display === 'none') return drop('display', el.textContent);
    if (st.opacity === '0') return drop('opacity', el.textContent);
    if (st.contentVisibility === 'hidden') return drop('content-visibility', el.textContent);
    if (zeroClipPath(st.clipPath) || zeroClip(st)) return drop('clipped', el.textContent);
    hostCandidate(el, tag, st);
    if (collectors.length && !el.firstElementChild && !ctx.visHidden && !/\S/.test(el.textContent)) {
      const ic = iconName(el);
      if (ic) addText(' [icon: ' + ic + '] ', null, ctx);
    }
    let c = ctx;
    const set = (k, v) => { if (c === ctx) c = Object.assign({}, ctx); c[k] = v; };
    if (st.position === 'fixed' && (ctx.clip || ctx.view || ctx.origin)) { set('clip', null); set('view', null); set('origin', null); }
    const hiddenVis = st.visibility !== 'visible';
    if (hiddenVis !== ctx.visHidden) set('visHidden', hiddenVis);
    if (st.color !== ctx.colorStr) {
      const color = parseColor(st.color);
      set('colorStr', st.color);
      set('color', color);
      set('transparent', !!color && color[3] === 0);
    }
    if (parseFloat(st.fontSize) < 1) set('transparent', true);
    if (st.backgroundImage !== 'none') { if (ctx.bg) set('bg', null); }
    else {
      const bgc = parseColor(st.backgroundColor);
      if (bgc && bgc[3] > 0) set('bg', ctx.bg || bgc[3] === 1 ? blend(bgc, ctx.bg || [255, 255, 255, 1]) : null);
    }
    if (st.cursor !== ctx.cursor) set('cursor', st.cursor);
    const role = roleOf(el, tag) || itemRoles.get(el) || '';
    let level = interactiveLevel(el, tag, role, st, ctx.cursor);
    // a listened/pointer child of a scripted control is a control of its own (class 1); inside
    // a native control (button, link) it is part of it
    if (level === 2 && ((ctx.inInteractive && ctx.nativeParent) || (el.querySelector(STRONG) && !dropZone(el)))) level = 0;
    if ((level === 2 || (level === 1 && ITEM_ROLE[role])) && !NATIVE.has(tag) && delegatesToItems(el, role)) level = 0;
    // attribute-only signals (tabindex/onclick) on containers of real controls: walk as content
    if (level === 1 && !NATIVE.has(tag) && !ROLES.has(role) && el.querySelector(STRONG)) level = 0;
    let control = null;
    if (!level && tag === 'label' && el.control && !isEmitted(el.control)) { control = el.control; level = 1; }
    const isHeading = role === 'heading' && !ctx.inInteractive;
    // overflow hidden/clip hides what lies outside on that axis; auto/scroll only scrolls it
    // out of view (still reachable: kept, but not in view)
    const clipX = /hidden|clip/.test(st.overflowX), clipY = /hidden|clip/.test(st.overflowY);
    const overflowClip = clipX || clipY;
    // <html>/<body> overflow applies to the viewport (propagation), which inView covers
    const scroller = overflowClip || (tag !== 'body' && tag !== 'html' && (st.overflowX !== 'visible' || st.overflowY !== 'visible'));
    let rect = null;
    if (level || isHeading || scroller || tag === 'iframe' || tag === 'frame') {
      rect = el.getBoundingClientRect();
      if (display === 'contents' && el.firstElementChild) rect = el.firstElementChild.getBoundingClientRect();
      const B = 1e9;
      if (overflowClip) {
        const own = [clipX ? rect.left : -B, clipY ? rect.top : -B, clipX ? rect.right : B, clipY ? rect.bottom : B];
        const box = intersect(c.clip, own);
        if (emptyBox(box)) return drop('clipped', el.textContent);
        set('clip', box);
      }
      if (scroller && tag !== 'body' && tag !== 'html') set('view', intersect(c.view, [rect.left, rect.top, rect.right, rect.bottom]));
      if (scroller && !overflowClip && tag !== 'body' && tag !== 'html') set('origin', [rect.left - el.scrollLeft, rect.top - el.scrollTop]);
    }
    // wave 5 item 3: a scroll box inside a clickable card has a ref of its own (scroll_within)
    if (scroller && !overflowClip && !level && (ctx.inInteractive || ctx.inRegion) && (el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1)) scrollBox(el, tag, rect, ctx);
    const lm = landmarkOf(el, tag, role);
    // an article inside main says nothing main does not (the main content): not repeated
    if (lm && !(lm.startsWith('article') && /(^|> )main\b/.test(ctx.landmark))) { flush(); set('landmark', ctx.landmark ? ctx.landmark + ' > ' + lm : lm); }
    if (tag === 'iframe' || tag === 'frame') return frameNode(el, rect, c);
    const cell = !collectors.length && gridCell(el, tag, role, c, set);
    const grid = !collectors.length && gridOf(el, tag, role, display, st.flexWrap);
    if (grid) { set('gridInfo', grid); set('grid', grid.id); set('row', null); set('col', null); set('rowState', null); }
    const isBlock = !INLINE.has(display);
    if (cell) flush();
    else if (display === 'table-cell') { if (!collectors.length && block && block.text.trim()) block.text += ' | '; }
    else if (isBlock) flush();
    // wave 5b: a box of its own (block, flex item, inline-block chip) is a word of its own in
    // a name or line built from several children: "One Two Three", never "OneTwoThree"
    const boxed = display !== 'inline' && display !== 'contents' && !cell && display !== 'table-cell';
    if (boxed) addText(' ', null, c);
    const outerBlockEl = blockEl, outerAbs = blockAbs;
    if (isBlock || cell) { blockEl = el; blockAbs = st.position === 'absolute' ? el : null; }
    if (tag === 'canvas') canvasNode(el, c);
    else if (tag === 'svg' && !level) svgNode(el, c);
    else if (tag === 'img') mediaText(el, tag, c);
    else if (tag === 'br') addText(' ', null, c);
    else if (level || isHeading) element(el, tag, control ? roleOf(control, control.localName) : role, level, isHeading, rect, c, control);
    else if (tag === 'label' && el.control) {
      collectors.push({ text: '' });
      walkChildren(el, c);
      collectors.pop();
    } else walkChildren(el, c);
    if (cell || (isBlock && display !== 'table-cell')) flush();
    if (boxed) addText(' ', null, c);
    blockEl = outerBlockEl;
    blockAbs = outerAbs;
  }

  // Grids (class 10): tables, ARIA grids and CSS grids of small cells; their cells carry
  // row/column numbers and compact.py renders one line per row.
  const levels = (vals) => {
    const out = [];
    for (const v of vals.slice().sort((a, b) => a - b)) if (!out.length || v - out[out.length - 1] > 2) out.push(v);
    return out;
  };
  const rank = (lv, v) => { let i = 0; while (i + 1 < lv.length && lv[i + 1] - 2 <= v) i++; return i + 1; };
  function sameKids(el) {
    const k = el.firstElementChild;
    if (!k) return false;
    for (const c of el.children) if (c.localName !== k.localName || c.className !== k.className) return false;
    return true;
  }
  function gridOf(el, tag, role, display, flexWrap) {
    if (tag === 'table' || role === 'grid' || role === 'table' || role === 'treegrid') return { id: 'G' + (++gridSeq), kind: 'table', rows: 0 };
    // a wrapping flex box of like children (a board of check boxes) lays out rows as a grid does
    const flexGrid = (display === 'flex' || display === 'inline-flex') && flexWrap !== 'nowrap' && sameKids(el);
    if ((display !== 'grid' && display !== 'inline-grid' && !flexGrid) || el.children.length < 4 || el.children.length > 400) return null;
    const boxes = new Map();
    for (const k of el.children) {
      if (k.getElementsByTagName('*').length > 20 || k.textContent.length > 200) return null;
      const r = k.getBoundingClientRect();
      if (r.width >= 1 && r.height >= 1) boxes.set(k, r);
    }
    const rows = levels([...boxes.values()].map((r) => r.top)), cols = levels([...boxes.values()].map((r) => r.left));
    if (rows.length < 2 || cols.length < 2) return null;
    const pos = new Map();
    for (const [k, r] of boxes) pos.set(k, [rank(rows, r.top), rank(cols, r.left)]);
    return { id: 'G' + (++gridSeq), kind: 'css', pos };
  }
  function gridCell(el, tag, role, c, set) {
    const gi = c.gridInfo;
    if (!gi) return false;
    if (gi.kind === 'css') {
      const p = gi.pos.get(el);
      if (p) { set('row', p[0]); set('col', p[1]); }
      return !!p;
    }
    if (tag === 'tr' || role === 'row') { set('row', ++gi.rows); set('rowState', { next: 1 }); set('col', null); return false; }
    if (!c.rowState || c.col !== null || !(tag === 'td' || tag === 'th' || ['gridcell', 'cell', 'columnheader', 'rowheader'].includes(role))) return false;
    set('col', c.rowState.next);
    c.rowState.next += Math.max(1, +el.colSpan || 1);
    return true;
  }

  function isEmitted(control) {
    const r = control.getBoundingClientRect();
    const st = getComputedStyle(control);
    return r.width > 1 && r.height > 1 && st.opacity !== '0' && st.visibility === 'visible';
  }

  function mediaText(el, tag, ctx) {
    if (ctx.visHidden) return;
    let t = '';
    if (tag === 'img') t = el.alt || '';
    else {
      t = el.getAttribute('aria-label') || '';
      if (!t) { const title = el.querySelector('title'); t = title ? title.textContent : ''; }
    }
    t = squash(t);
    if (!t) return tag === 'img' && !collectors.length && !el.hasAttribute('alt') ? pictureText(el, ctx) : undefined;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2 || offDocument(r)) return;
    if (collectors.length) addText(' ' + t + ' ', r, ctx);
  }

  // Wave 5 item 6: a content picture with no alt attribute ("the example on the right") is a
  // line of its own, named by its file's words when they read as words: `[image: digit seven]`
  function pictureText(el, ctx) {
    const r = el.getBoundingClientRect();
    if (r.width < 24 || r.height < 24 || offDoc(r, ctx) || (ctx.clip && emptyBox(intersect(ctx.clip, [r.left, r.top, r.right, r.bottom])))) return;
    let file = '';
    try { file = decodeURIComponent(new URL(el.currentSrc || el.src, location.href).pathname.split('/').pop() || ''); } catch (e) { file = ''; }
    const words = file.replace(/\.[a-z0-9]{2,5}$/i, '').split(/[\s_.\-+]+/).filter((w) => /^[A-Za-z]{2,20}$|^\d{1,3}$/.test(w));
    const said = clip(words.join(' '), 40);
    flush();
    addText(said ? `[image: ${said}]` : '[image]', r, ctx);
    flush();
  }
  const svgLink = (sh) => sh.localName === 'a' && (sh.hasAttribute('href') || sh.hasAttribute('xlink:href'));
  // SVG: <text> drawn in the picture is page text; shapes with pointer listeners are controls
  // named by the text drawn over them (seed 002 interactive elements).
  function svgNode(el, ctx) {
    if (ctx.visHidden) return drop('visibility', el.textContent);
    const texts = [];
    for (const t of el.querySelectorAll('text')) {
      const raw = squash(t.textContent || '');
      if (!raw || isPrivate(t)) continue;
      if (!t.checkVisibility({ opacityProperty: true, visibilityProperty: true })) { drop('svg-hidden', raw); continue; }
      const ts = getComputedStyle(t);
      const fill = parseColor(ts.fill);
      if ((ts.fill === 'none' && ts.stroke === 'none') || (fill && fill[3] === 0) || parseFloat(ts.fontSize) < 1 || ts.fillOpacity === '0') { drop('transparent', raw); continue; }
      const r = t.getBoundingClientRect();
      if (r.width < 1 || r.height < 1) { drop('size', raw); continue; }
      if (offDocument(r)) { drop('offscreen', raw); continue; }
      if (ctx.clip && emptyBox(intersect(ctx.clip, [r.left, r.top, r.right, r.bottom]))) { drop('clipped', raw); continue; }
      texts.push([raw, r]);
    }
    if (!texts.length) { mediaText(el, 'svg', ctx); }
    if (collectors.length) { for (const [t, r] of texts) addText(' ' + t + ' ', r, ctx); return; }
    const shapes = [];
    for (const sh of el.querySelectorAll('*')) {
      if (sh.localName === 'text' || sh.localName === 'tspan' || isPrivate(sh)) continue;
      if (g.listeners.has(sh) || sh.hasAttribute('onclick') || delegated.has(sh) || svgLink(sh)) shapes.push(sh);
      if (shapes.length >= 200) break;
    }
    flush();
    for (const [t, r] of texts) addText(' ' + t + ' ', r, ctx);
    flush();
    for (const sh of shapes) {
      if (!sh.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
      const r = sh.getBoundingClientRect();
      if (r.width < 1 || r.height < 1 || offDocument(r)) continue;
      const inside = texts.filter(([, b]) => { const x = b.left + b.width / 2, y = b.top + b.height / 2; return x >= r.left && x <= r.right && y >= r.top && y <= r.bottom; });
      const name = clip(squash(sh.getAttribute('aria-label') || inside.map(([t]) => t).join(' ') || hintOf(sh) || sh.localName), 100);
      nodes.push({ id: els.length, role: svgLink(sh) ? 'link' : roleOf(sh, sh.localName) || 'button', name, value: null, states: [], bbox: [r.left, r.top, r.width, r.height],
        inView: seen(r, ctx.view), interactive: true, level: 0, landmark: ctx.landmark, heading, list: ctx.list, item: ctx.item, tag: sh.localName });
      els.push(sh);
    }
  }

  // Direction and grip glyphs (carets, triangles, chevrons, drag handles) say nothing the text
  // and the expanded/collapsed states do not: dropped from a name that has text (class 8).
  const DECOR = /^(?:triangle|caret|carat|chevron|angle|arrow|arrowthick|arrowstop|arrowthickstop|arrowreturn|arrowreturnthick|grip|gripsmall|grip-dotted|gripsmall-diagonal|sort|drag|handle|menu-down|menu-up|menu-left|menu-right)(?:-[a-z0-9-]+)?$/;
  function withoutDecor(content) {
    if (!content.includes('[icon: ')) return content;
    const plain = squash(content.replace(/\[icon: ([^\]]+)\]/g, (m, n) => (DECOR.test(n) ? ' ' : m)));
    return /\S/.test(plain.replace(/\[icon: [^\]]+\]/g, '')) ? plain : content;
  }
  // Issue 12: an aria-label that is not the visible text does not replace it. The visible text
  // is the name and the differing label is shown beside it, capped (`node.aria`); an aria-label
  // that contains the visible text (label in name) stays the name unless it is much longer,
  // one the visible text contains adds nothing; a glyph ("×", "›") is named by its aria-label.
  const norm = (t) => t.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
  function visibleFirst(el, name, text, node) {
    const al = squash(el.getAttribute('aria-label') || '');
    if (!al || name !== al) return name;
    const a = norm(al), v = norm(text);
    if (a === v || v.length <= 1) return name;
    if (v.includes(a)) return text;  // the visible text says it already ("11 Comments" / "Comment")
    if (a.includes(v) && al.length <= text.length + 40) return name;
    node.aria = clip(al, 40);
    return text;
  }

  // Issue 26 item 1: a clickable container (listener, pointer cursor, a `button` role on a
  // div) holding long or structured content is a region: its ref is named by its own label
  // (aria-labelledby, aria-label, title, else its first short text) and its content is
  // walked as lines of their own, so a success message inside it is never cut from a name.
  function isRegion(el, tag, role, isHeading, control) {
    if (isHeading || control || NATIVE.has(tag) || !(role === '' || role === 'button' || role === 'generic')) return false;
    const t = squash(el.textContent || '');
    if (t.length > 100) return true;
    if (t.length <= 40) return false;
    let blocks = 0;
    for (const d of el.querySelectorAll('h1,h2,h3,h4,h5,h6,p,li,div,section')) {
      if (/\S/.test(d.textContent) && !d.querySelector('p,div,li,section') && ++blocks >= 3) return true;
    }
    return false;
  }
  function scrollBox(el, tag, rect, ctx) {
    flush();
    if (ctx.visHidden || rect.width < 1 || rect.height < 1 || offDoc(rect, ctx)) return;
    nodes.push({ id: els.length, role: 'region', name: clip(squash(el.getAttribute('aria-label') || el.title || ''), 60), value: null, states: ['scrollable'],
      bbox: [rect.left, rect.top, rect.width, rect.height], inView: seen(rect, ctx.view), interactive: true, level: 0,
      landmark: ctx.landmark, heading, list: ctx.list, item: ctx.item, tag, grid: ctx.grid, row: ctx.row, col: ctx.col });
    els.push(el);
  }
  // wave 5b: a <canvas> (a drawing pad, a game) has no text or name but is a target: a line
  // with its size and centre, `canvas 300x200 at (170,200)`
  function canvasNode(el, ctx) {
    if (collectors.length || ctx.visHidden || canvases >= MAX_CANVAS) return;
    const r = el.getBoundingClientRect();
    if (r.width < 24 || r.height < 24 || offDoc(r, ctx) || (ctx.clip && emptyBox(intersect(ctx.clip, [r.left, r.top, r.right, r.bottom])))) return;
    canvases += 1;
    flush();
    nodes.push({ id: els.length, role: 'canvas', name: clip(squash(el.getAttribute('aria-label') || el.title || ''), 60), value: null, states: dragStates(el, ['box']),
      bbox: [r.left, r.top, r.width, r.height], inView: seen(r, ctx.view), interactive: true, level: 0,
      landmark: ctx.landmark, heading, list: ctx.list, item: ctx.item, tag: 'canvas', grid: ctx.grid, row: ctx.row, col: ctx.col });
    els.push(el);
  }
  // a small nameless box showing no picture that takes clicks (a pointer cursor or a listener)
  function dotLike(el, tag, rect) {
    if (NATIVE.has(tag) || rect.width > 50 || rect.height > 50 || rect.width < 4 || rect.height < 4) return false;
    return getComputedStyle(el).backgroundImage === 'none' && !el.querySelector('svg,img,canvas,video');
  }
  function regionElement(el, tag, role, rect, ctx) {
    const visible = !ctx.visHidden && rect.width >= 1 && rect.height >= 1 && !offDoc(rect, ctx);
    const idx = nodes.length;
    const node = { id: -1, role: role || 'button', name: '', value: null, states: [],
      bbox: [rect.left, rect.top, rect.width, rect.height], inView: seen(rect, ctx.view), interactive: true, level: 0,
      landmark: ctx.landmark, heading, list: ctx.list, item: ctx.item, tag, grid: ctx.grid, row: ctx.row, col: ctx.col };
    nodes.push(node);
    walkChildren(el, Object.assign({}, ctx, { inRegion: true }));
    flush();
    if (!visible) { nodes.splice(idx, 1); return; }
    let name = nameOf(el, tag, 'region', '');
    if (!name) {
      const first = nodes.slice(idx + 1).find((n) => (n.role === 'text' || n.role === 'heading') && n.name);
      if (first && first.name.length <= 60) name = first.name;
    }
    node.name = cut(node, name, 100);
    if (node.role === 'generic') node.role = navigates(el) ? 'link' : 'button';
    node.states = dragStates(el, statesOf(el, tag, node.role));
    node.states.push('region');
    node.id = els.length;
    els.push(el);
  }

  function element(el, tag, role, level, isHeading, rect, ctx, control) {
    flush();
    if (isRegion(el, tag, role, isHeading, control)) return regionElement(el, tag, role, rect, ctx);
    const visible = !ctx.visHidden && rect.width >= 1 && rect.height >= 1 && !offDoc(rect, ctx) &&
      !(ctx.clip && emptyBox(intersect(ctx.clip, [rect.left, rect.top, rect.right, rect.bottom])));
    const collector = { text: '' };
    collectors.push(collector);
    const idx = nodes.length;
    const node = { id: -1, role: isHeading ? 'heading' : role || 'generic', name: '', value: null, states: [],
      bbox: [rect.left, rect.top, rect.width, rect.height], inView: seen(rect, ctx.view), interactive: !isHeading, level: 0,
      landmark: ctx.landmark, heading, list: ctx.list, item: ctx.item, tag, grid: ctx.grid, row: ctx.row, col: ctx.col };
    nodes.push(node);
    if (tag !== 'input' && tag !== 'textarea' && tag !== 'select') {
      walkChildren(el, isHeading ? ctx : Object.assign({}, ctx, { inInteractive: true, nativeParent: ctx.nativeParent || NATIVE.has(tag) }));
    }
    flush();
    collectors.pop();
    let content = squash(collector.text);
    if (!visible) {
      nodes.splice(idx, 1);
      drop(ctx.visHidden ? 'visibility' : 'size', content);
      return;
    }
    const target = control || el;
    content = withoutDecor(content);
    // content that is only icons: the control's own title/label first, else the icon names
    const iconsOnly = /^(\[icon: [^\]]+\]\s*)+$/.test(content);
    const text = iconsOnly ? '' : content;
    let name = control ? text || nameOf(control, control.localName, role, '') : nameOf(el, tag, node.role, text);
    if (!name && iconsOnly) name = content.replace(/\[icon: ([^\]]+)\]/g, '$1');
    if (!control && !isHeading && text && !FIELDS.has(node.role)) name = visibleFirst(el, name, text, node);
    // a name that says the same thing twice (a logo's alt text and its caption): once
    const twice = /^(.{2,80}?) \1$/.exec(name);
    if (twice) name = twice[1];
    // issue 31 item 6: an emoji or symbol for a name (a button "🔍") gets its title beside it
    if (name && /^[\p{Extended_Pictographic}\p{S}\p{P}\s\u200d\ufe0f]+$/u.test(name)) {
      const tip = squash(target.getAttribute('title') || target.getAttribute('data-tooltip') || '');
      if (tip && tip !== name) name = `${name} (${clip(tip, 60)})`;
    }
    node.name = isHeading ? clip(name, 200) : cut(node, name, 100);
    if (isHeading) {
      const al = el.getAttribute('aria-level');
      node.level = al ? +al : /^h[1-6]$/.test(tag) ? +tag[1] : 2;
      heading = clip(node.name, 80);
      node.heading = heading;
      if (!node.name) nodes.splice(idx, 1);
      return;
    }
    let nested = false;
    for (let i = idx + 1; i < nodes.length && !nested; i++) nested = nodes[i].interactive;
    if (!node.name && !control && !(nested && level === 2)) node.name = iconText(el);
    let dot = false;
    if (level === 2 && !node.name) {
      const listened = el.onclick || el.onmousedown || g.listeners.has(el) || delegated.has(el);
      // nameless wrapper of controls that got their own refs: the controls stand for it
      // a small pointer-cursor box with no picture (a dot to click, a swatch): kept, capped
      dot = !listened && dots < MAX_DOTS && dotLike(el, tag, rect);
      if (!dropZone(el) && (nested || !(listened || dot || iconControl(el, tag, rect)) || rect.width > 600 || rect.width * rect.height > 60000)) { nodes.splice(idx, 1); return; }
      if (dot) dots += 1;
      // an SVG shape without a name is named by its form (polygon, circle), not "icon"
      const form = el instanceof SVGElement && el.localName !== 'svg' && el.localName !== 'g' ? el.localName : 'icon';
      node.name = ctx.col !== null && ctx.col !== undefined ? '' : hintOf(el) || (form === 'icon' ? '' : form);
    }
    // nameless and not a grid cell: an icon the model should look at, with its position
    const iconOnly = !node.name && !nested && (ctx.col === null || ctx.col === undefined) && !FIELDS.has(node.role);
    if (node.role === 'generic') node.role = navigates(el) ? 'link' : 'button';
    if (target.localName === 'select') node.options = selectOptions(target, node.role);
    const v = valueOf(target, target.localName, node.role);
    node.value = v === null || v === undefined ? null : clip(String(v), 80);
    node.states = statesOf(target, target.localName, node.role);
    dragStates(el, node.states);
    // nameless: `icon at (x,y)`; a drop zone or a pointer-only dot by size: `dot 14x14 at (x,y)`
    if (iconOnly && (node.value === null || node.value === '')) node.states.push(...(dropZone(el) ? ['box'] : dot ? ['dot', 'box'] : ['icon']));
    if (!node.name) { const f = fillOf(el); if (f) node.states.push('fill ' + f); }
    // a disclosure named only by its direction glyph: the expanded/collapsed state says it
    if (DECOR.test(node.name) && (node.states.includes('expanded') || node.states.includes('collapsed'))) node.name = '';
    node.id = els.length;
    els.push(el);
  }

  // A nameless icon a person would click: an icon-sized (<= 50 px) href-less <a> or
  // pointer-cursor box showing a picture (background image, <svg> or <img>).
  function iconControl(el, tag, rect) {
    if (rect.width > 50 || rect.height > 50) return false;
    const st = getComputedStyle(el);
    if (tag !== 'a' && st.cursor !== 'pointer') return false;
    return st.backgroundImage !== 'none' || !!el.querySelector('svg,img');
  }

  function frameNode(el, rect, ctx) {
    flush();
    if (ctx.visHidden || rect.width < 2 || rect.height < 2 || offDocument(rect)) return drop('frame-hidden', '');
    const st = getComputedStyle(el);
    const k = frames.length;
    g.frameIds.set(el, k);
    const left = rect.left + el.clientLeft + parseFloat(st.paddingLeft);
    const top = rect.top + el.clientTop + parseFloat(st.paddingTop);
    const clipBox = intersect(ctx.clip, [rect.left, rect.top, rect.right, rect.bottom]);
    frames.push({ k, offset: [left, top], clip: clipBox });
    nodes.push({ id: -1, role: 'iframe', frame: k, name: squash(el.title || el.name || ''), value: null, states: [],
      bbox: [rect.left, rect.top, rect.width, rect.height], inView: inView(rect), interactive: false, level: 0,
      landmark: ctx.landmark, heading, list: ctx.list, item: ctx.item, tag: 'iframe' });
  }

  // Unlabelled fields (class 5): the nearest short text on the same row (left, then right) or
  // directly above names the field; check boxes look right first.
  function layoutLabels() {
    const texts = nodes.filter((n) => n.role === 'text' && n.name.length <= 60 && /\w/.test(n.name));
    if (!texts.length) return;
    // wave 5 item 4: a text names one field only (a "to:" label is not also the body's name)
    const taken = new Set();
    for (const n of nodes) {
      if (!n.interactive || n.id < 0 || !FIELDS.has(n.role)) continue;
      const el = els[n.id];
      const ph = squash(el.getAttribute('placeholder') || el.getAttribute('aria-placeholder') || '');
      if (n.name && n.name !== ph) continue;
      // a table cell's text labels only a field in the same row of that table
      const near = texts.filter((t) => !taken.has(t) && (t.col === null || t.col === undefined || (t.grid === n.grid && t.row === n.row)) &&
        !(n.role === 'slider' && NUMBER.test(t.name)));
      // a field with its own placeholder takes a label from its row only, not the line above
      const t = nearestLabel(near, trackBox(n, el), n.role === 'checkbox' || n.role === 'radio' || n.role === 'switch', !!n.name);
      if (!t) continue;
      n.name = t.name.replace(/[\s:*]+$/, '');
      taken.add(t);
      // the label's own line would repeat the name: it goes, unless it is a grid cell or longer text
      if ((t.col === null || t.col === undefined) && t.id < 0 && !t.full) t.used = true;
    }
    for (let i = nodes.length - 1; i >= 0; i--) if (nodes[i].used) nodes.splice(i, 1);
  }
  // Issue 26 item 2: a control named by a glyph ("-", "+", "×") is tied to the short texts on
  // its row (a quantity and its label), not only by line order: `beside "Adults 2"`
  function glyphNeighbours() {
    const GLYPH = /^[^\p{L}\p{N}]{1,2}$/u;
    const texts = nodes.filter((n) => n.role === 'text' && n.name.length <= 30 && (n.col === null || n.col === undefined));
    for (const n of nodes) {
      if (!n.interactive || n.id < 0 || !GLYPH.test(n.name) || (n.col !== null && n.col !== undefined)) continue;
      const [x, y, w, h] = n.bbox, cy = y + h / 2;
      const row = texts.filter((t) => Math.abs(t.bbox[1] + t.bbox[3] / 2 - cy) <= Math.max(h, t.bbox[3]) / 2 &&
        t.bbox[0] + t.bbox[2] > x - 300 && t.bbox[0] < x + w + 300);
      if (row.length && row.length <= 3) n.beside = clip(row.sort((a, b) => a.bbox[0] - b.bbox[0]).map((t) => t.name).join(' '), 60);
    }
  }
  // a slider handle sits somewhere on its track: labels and value text are found from the track
  function trackBox(n, el) {
    if (n.role !== 'slider' || !el.classList.contains('ui-slider-handle') || !el.parentElement) return n.bbox;
    const r = el.parentElement.getBoundingClientRect();
    return [r.left, r.top, r.width, r.height];
  }
  // the value text a role-less slider shows beside its track (`-97`): the handle's value, one line
  function sliderValues() {
    for (const n of nodes) {
      if (n.role !== 'slider' || n.id < 0 || !els[n.id].classList.contains('ui-slider-handle')) continue;
      const [x, y, w, h] = trackBox(n, els[n.id]);
      const t = nodes.find((o) => o.role === 'text' && !o.used && NUMBER.test(o.name) && o.bbox[0] >= x + w - 2 && o.bbox[0] - x - w < 80 &&
        o.bbox[1] < y + h && o.bbox[1] + o.bbox[3] > y);
      if (!t) continue;
      if (n.value === null || /%$/.test(n.value)) n.value = t.name;
      if (n.value === t.name || n.value.startsWith(t.name + ' (')) t.used = true;
    }
    for (let i = nodes.length - 1; i >= 0; i--) if (nodes[i].used) nodes.splice(i, 1);
  }
  function nearestLabel(texts, b, boxFirst, rowOnly) {
    const blocked = (t) => nodes.some((o) => o.interactive && o.bbox !== b && o.bbox[1] >= t.bbox[1] + t.bbox[3] - 2 &&
      o.bbox[1] + o.bbox[3] <= b[1] + 2 && o.bbox[0] < b[0] + b[2] && o.bbox[0] + o.bbox[2] > b[0]);
    const [x, y, w, h] = b;
    const right = x + w, cy = y + h / 2;
    const best = {}, gap = { left: 200, right: boxFirst ? 200 : 60, above: 32 };
    for (const t of texts) {
      const [tx, ty, tw, th] = t.bbox;
      const tr = tx + tw, tb = ty + th;
      const sameRow = Math.abs(ty + th / 2 - cy) <= Math.max(h, th) / 2;
      let side = null, d = 0;
      if (sameRow && tr <= x + 2) { side = 'left'; d = x - tr; }
      else if (sameRow && tx >= right - 2) { side = 'right'; d = tx - right; }
      // a "key: value" line above (an email's "subject: Hello") is a field of its own, no label
      else if (!rowOnly && tb <= y + 2 && tx < right && tr > x - 20 && !/:\s+\S/.test(t.name)) { side = 'above'; d = y - tb; }
      if (side && d < gap[side] && !(side === 'above' && blocked(t))) { gap[side] = d; best[side] = t; }
    }
    for (const k of boxFirst ? ['right', 'left', 'above'] : ['left', 'above', 'right']) {
      if (best[k]) return best[k];
    }
    return null;
  }

  // A control whose one nested control has the same name (or that has no name of its own: its
  // text is the nested control's) is one line, e.g. a tab or menu item wrapping its link: the
  // inner element is the target, the outer's widget role and states stay.
  function mergeRepeats() {
    const WIDGET = new Set(['tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem', 'radio', 'checkbox', 'switch']);
    for (let i = nodes.length - 2; i >= 0; i--) {
      const a = nodes[i], b = nodes[i + 1], c = nodes[i + 2];
      if (!a.interactive || !b.interactive || a.id < 0 || b.id < 0 || (a.name && a.name !== b.name) || a.states.includes('region')) continue;
      const outer = els[a.id];
      if (outer === els[b.id] || !outer.contains(els[b.id])) continue;
      // a nameless outer control merges only when all its text is the inner control's
      if (!a.name && squash(outer.textContent || '') !== squash(els[b.id].textContent || '')) continue;
      if (c && c.interactive && c.id >= 0 && outer.contains(els[c.id])) continue;
      if (WIDGET.has(a.role)) b.role = a.role;
      // the outer's nameless marks (`icon` with its position, its fill) are not the named
      // inner control's (wave 5b: `tab "Overview" selected icon at (86,26)`)
      for (const st of a.states) if (!b.states.includes(st) && !(b.name && (st === 'icon' || st.startsWith('fill ')))) b.states.push(st);
      nodes.splice(i, 1);
    }
  }

  // inside in the flat (composed) tree, as js/click.js: slotted light-DOM children are inside
  // the shadow element that shows them
  const flatUp = (n) => n.assignedSlot || n.parentNode || n.host;
  function flatInside(outer, inner) {
    for (let n = inner; n; n = flatUp(n)) if (n === outer) return true;
    return false;
  }
  // the hit test reached el's own shadow host: a text node slotted into el belongs to the light
  // tree, so the hit is retargeted to the host; anything covering el would be hit as itself
  function hostOf(hit, el) {
    for (let n = el.getRootNode(); n && n.host; n = n.host.getRootNode()) if (n.host === hit) return true;
    return false;
  }
  // what covers el (the element hit at its centre or edges), or null when nothing does
  function covered(el, b) {
    const root = el.getRootNode();
    const probe = root.elementFromPoint ? root : document;
    const pts = [[b[0] + b[2] / 2, b[1] + b[3] / 2], [b[0] + Math.min(b[2] / 4, 8), b[1] + b[3] / 2], [b[0] + b[2] - Math.min(b[2] / 4, 8), b[1] + b[3] / 2]];
    let cover = null;
    for (const [x, y] of pts) {
      if (x < 0 || y < 0 || x >= vw || y >= vh) continue;
      const hit = probe.elementFromPoint(x, y);
      if (!hit || flatInside(el, hit) || hostOf(hit, el) || (hit.localName === 'label' && hit.control === el)) return null;
      if (el.localName === 'label' && el.control === hit) return null;
      cover = cover || hit;
    }
    return cover;
  }
  // a short name for a cover: the nearest ancestor (of 8) that says what it is, by label,
  // heading or short text, else by role; never text from a private region
  function coverName(hit) {
    let fallback = '';
    for (let a = hit, i = 0; a && a.nodeType === 1 && a !== document.body && i < 8; a = a.parentElement || (a.getRootNode() && a.getRootNode().host), i++) {
      if (isPrivate(a)) return 'a private region';
      const role = (a.getAttribute('role') || '').split(/\s+/)[0] || (a.localName === 'dialog' ? 'dialog' : '');
      const label = squash(a.getAttribute('aria-label') || '');
      const head = a.querySelector && a.querySelector('h1,h2,h3,h4,h5,h6,[role=heading]');
      const said = label || (head && squash(head.textContent || '')) || '';
      if (said) return `"${clip(said, 30)}"`;
      if (['dialog', 'alertdialog', 'banner', 'alert', 'region', 'tooltip', 'menu', 'listbox'].includes(role)) return role;
      const text = squash(a.textContent || '');
      if (!fallback && text && text.length <= 30) fallback = `"${text}"`;
    }
    return fallback || hintOf(hit) || hit.localName;
  }

  const ctx0 = { clip: null, view: null, visHidden: false, colorStr: '', color: null, bg: [255, 255, 255, 1], transparent: false, cursor: 'auto',
    landmark: '', list: null, item: null, inInteractive: false, nativeParent: false, gridInfo: null, grid: null, row: null, col: null, rowState: null, origin: null };
  if (document.body) walk(document.body, ctx0);
  flush();
  layoutLabels();
  sliderValues();
  glyphNeighbours();
  pagerText();
  mergeRepeats();
  layoutMarks.grid(nodes);  // wave 5 items 2 and 4 (js/layout_marks.js)
  layoutMarks.over(nodes);
  for (const n of nodes) delete n.span;
  const covers = new Set();
  for (const n of nodes) {
    if (!n.interactive || !n.inView) continue;
    const cover = covered(els[n.id], n.bbox);
    if (!cover) continue;
    n.states.push('covered');
    const said = clip(coverName(cover), 40);  // named once: the later lines covered by it say `covered`
    if (!covers.has(said)) { covers.add(said); n.cover = said; }
  }
  // Issue 26 item 4: the page's selected text (a drag-select), outside private regions
  function selectedText() {
    const sel = window.getSelection && window.getSelection();
    if (!sel || sel.isCollapsed || !sel.rangeCount) return '';
    const a = sel.anchorNode && (sel.anchorNode.nodeType === 1 ? sel.anchorNode : sel.anchorNode.parentElement);
    if (a && isPrivate(a)) return '';
    return clip(squash(sel.toString()), 200);
  }
  g.snap = { version: args.version, els };
  g.cands = cands;
  // A JSON string: Playwright's structured serializer is ~10x slower on big results.
  return JSON.stringify({
    url: location.href, title: document.title, nodes, frames, hostCandidates: cands.length,
    viewport: { width: vw, height: vh, scrollX: sx, scrollY: sy, docWidth: docW, docHeight: docH },
    stats: { visited, dropped, ms: performance.now() - t0 },
    modal: window === window.top ? detectModal() : null,
    selection: window === window.top ? selectedText() : '',
  });
}
