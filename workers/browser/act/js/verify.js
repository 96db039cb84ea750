// Before/after state of an action for verify-act-verify (seed 004 App. F.2.2, seed 002),
// run in the target element's own frame after verify_tracker.js is installed there.
// op "arm": start a session and return the before-state; op "collect": return what changed,
// with mutations attributed (input-caused vs late, ambient tickers excluded, target-related),
// the value of another form field changed (a suggestion filled the input), and the target
// hidden (its menu closed, or the view around it changed) or detached; all three are effects even when the DOM mutations that
// carried them belong to an element that had changed in timer bursts before (ambient);
// op "mouse": the last pointer position seen in this frame; ops "pause"/"resume": drop the
// mutations our own screenshot makes in between.
// Called as ElementHandle.evaluate(el, [op, end]) or Frame.evaluate([op, null, end]); `end`
// true ends the session after collecting, "effect" only when the DOM shows an effect.
(a, b) => {
  const [op, el, end] = b === undefined ? a : [b[0], a, b[1]];
  const doc = el ? el.ownerDocument : document;
  const win = doc.defaultView || window;
  const getComputedStyle = (e) => win.getComputedStyle(e);
  const V = win.__webagentVerify;
  if (!V) return null;
  if (op === 'mouse') return V.mouse || null;
  if (op === 'pause' || op === 'resume') {  // around a screenshot of ours (verify.py _shot)
    V.flush();
    V.paused = op === 'pause';
    return null;
  }
  const ACTIVE_CLASS = /(^|[-_\s])(active|selected|checked|pressed|current|open|on|toggled)($|[-_\s])/i;

  function deepFocus() {
    let f = doc.activeElement;
    while (f && f.shadowRoot && f.shadowRoot.activeElement) f = f.shadowRoot.activeElement;
    return f;
  }
  function editable(f) {
    if (!f) return false;
    const tag = f.localName;
    if (tag === 'textarea' || tag === 'select' || f.isContentEditable) return true;
    return tag === 'input' && !['button', 'submit', 'reset', 'checkbox', 'radio', 'image', 'range', 'color', 'file'].includes(f.type);
  }
  function scroller(e) {
    for (let n = e && e.parentElement; n; n = n.parentElement) {
      const st = getComputedStyle(n);
      if (/(auto|scroll)/.test(st.overflowY + st.overflowX) && (n.scrollHeight > n.clientHeight || n.scrollWidth > n.clientWidth)) return n;
    }
    return null;
  }
  function scrollPos(e) {
    const s = scroller(e);
    return [win.scrollX, win.scrollY, s ? s.scrollLeft : 0, s ? s.scrollTop : 0];
  }
  function modals() {
    let n = 0;
    for (const m of doc.querySelectorAll('dialog[open], [role=dialog], [role=alertdialog], [aria-modal=true]')) {
      const r = m.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && getComputedStyle(m).visibility !== 'hidden') n += 1;
    }
    return n;
  }
  function stateOf(e) {
    if (!e) return { active: false, sig: '', value: null, connected: false };
    const attrs = ['aria-pressed', 'aria-checked', 'aria-selected', 'aria-expanded', 'aria-current', 'open']
      .map((a) => `${a}=${e.getAttribute(a)}`);
    const classes = Array.from(e.classList || []).filter((c) => ACTIVE_CLASS.test(c)).sort().join(' ');
    const checked = 'checked' in e ? !!e.checked : null;
    const selected = 'selected' in e ? !!e.selected : null;
    const active = checked === true || selected === true || !!classes
      || ['true', 'mixed'].includes(e.getAttribute('aria-pressed')) || e.getAttribute('aria-checked') === 'true'
      || e.getAttribute('aria-selected') === 'true' || (e.getAttribute('aria-current') || 'false') !== 'false';
    return { active, sig: `${attrs.join(';')}|${classes}|${checked}|${selected}`,
      value: 'value' in e && typeof e.value === 'string' ? e.value : null, connected: e.isConnected };
  }
  function fields() {
    return Array.from(doc.querySelectorAll('input, textarea, select')).filter((f) => editable(f));
  }
  // a password, or a field masked for a secret (mask_secret.js), is never echoed back
  function shownValue(f) {
    const masked = f.type === 'password' || (getComputedStyle(f).webkitTextSecurity || 'none') !== 'none';
    return masked && f.value ? '[secret]' : f.value;
  }
  function fieldName(f) {
    const label = f.labels && f.labels[0] ? f.labels[0].innerText : '';
    return unicodeText.cut((f.getAttribute('aria-label') || label || f.name || f.id || f.localName).replace(/\s+/g, ' ').trim(), 40);
  }
  function shown(e) {
    if (!e || !e.isConnected) return false;
    if (e.checkVisibility) return e.checkVisibility({ visibilityProperty: true });
    return e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  }
  // the target sits in a popup (menu, list box, suggestion list, a small floating box):
  // hiding it means the popup closed; otherwise a view changed around it
  function inPopup(e) {
    if (!e) return false;
    if (e.closest('[role=menu], [role=listbox], [role=menubar], [role=option], [role=menuitem], [role=tooltip], datalist, select')) return true;
    const area = win.innerWidth * win.innerHeight;
    for (let n = e; n && n !== doc.body; n = n.parentElement) {
      if (!['absolute', 'fixed'].includes(getComputedStyle(n).position)) continue;
      const r = n.getBoundingClientRect();
      return r.width * r.height < area / 2;
    }
    return false;
  }
  function describe(e) {
    const n = e && e.nodeType === 1 ? e : e && e.parentElement;
    if (!n) return '';
    const text = (n.getAttribute('aria-label') || n.innerText || n.value || '').replace(/\s+/g, ' ').trim();
    return unicodeText.cut(`<${n.localName}>${text ? ` "${text}"` : ''}`, 60);
  }
  // what a control controls (aria-controls, else a popup it announces with aria-haspopup):
  // whether it is shown, so a click's result says if the menu really opened (issue 26 item 8)
  function controlled(e) {
    if (!e || !e.getAttribute) return null;
    const ids = (e.getAttribute('aria-controls') || '').split(/\s+/).filter(Boolean);
    const popup = e.getAttribute('aria-haspopup');
    if (!ids.length && (!popup || popup === 'false')) return null;
    const els = ids.map((i) => doc.getElementById(i)).filter(Boolean);
    return { shown: els.some((c) => shown(c)), expanded: e.getAttribute('aria-expanded'),
      what: els.length ? (els[0].getAttribute('role') || els[0].localName) : (popup === 'true' ? 'menu' : popup) };
  }
  function listensDouble(e) {
    for (let n = e; n; n = n.parentNode || n.host) {
      if ((V.dbl && V.dbl.has(n)) || typeof n.ondblclick === 'function') return true;
    }
    return false;
  }
  function xpath(e) {
    const parts = [];
    for (let n = e; n && n.nodeType === 1; n = n.parentNode) {
      let i = 1;
      for (let s = n.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === n.localName) i += 1;
      parts.unshift(`${n.localName}[${i}]`);
    }
    return '/' + parts.join('/');
  }

  if (op === 'arm') {
    V.flush();
    const focus = deepFocus();
    const values = fields().filter((f) => f !== el).map((f) => [f, f.value]);
    V.session = { t0: performance.now(), records: [], target: el, focus, scroll: scrollPos(el), modals: modals(), url: win.location.href,
      state: stateOf(el), values, shown: shown(el), popup: inPopup(el), handled: V.handled,
      controls: controlled(el), landed: (V.landed || []).length, selected: String(win.getSelection ? win.getSelection() : '').length };
    const tag = el ? el.localName : '';
    return { xpath: el ? xpath(el) : '', state: V.session.state, silent: ['canvas', 'video', 'embed', 'object'].includes(tag) };
  }

  // op "collect"
  V.flush();
  const s = V.session;
  if (!s) return null;
  const tgt = s.target;
  const sessionBursts = new Map();
  for (const r of s.records) if (!r.causal) sessionBursts.set(r.el, (sessionBursts.get(r.el) || 0) + 1);
  const out = { causal: 0, late: 0, target: 0, ambient: 0, kinds: {} };
  let restyledOnly = true;  // every counted mutation is an attribute (a class moved)
  for (const r of s.records) {
    const periodic = r.ambientBefore || (!r.causal && V.isAmbient(r.el) && (sessionBursts.get(r.el) || 0) >= 2);
    if (periodic) { out.ambient += 1; continue; }
    if (r.kind !== 'attr') restyledOnly = false;
    if (r.causal) out.causal += 1; else out.late += 1;
    out.kinds[r.kind] = (out.kinds[r.kind] || 0) + 1;
    if (tgt && (r.el === tgt || tgt.contains(r.el) || (r.kind === 'attr' && r.el.contains(tgt)))) out.target += 1;
  }
  // a single click that only restyled things (focus, a class moved to the element: nothing
  // added, removed or re-worded), on an element that listens for double click (itself or
  // an ancestor): its action may need two clicks
  out.dblclick = !!tgt && restyledOnly && listensDouble(tgt);
  const focus = deepFocus();
  const after = stateOf(tgt);
  const pos = scrollPos(tgt);
  out.url = win.location.href !== s.url;
  out.focusMoved = focus !== s.focus && !!focus && focus !== doc.body && !(tgt && focus === tgt && !editable(focus))
    && !['iframe', 'frame'].includes(focus.localName);  // a click inside a frame focuses it
  out.focusEditable = editable(focus) && focus !== s.focus;
  out.scrolled = pos.some((v, i) => Math.abs(v - s.scroll[i]) >= 1);
  out.modal = modals() - s.modals;
  out.activeBefore = s.state.active;
  out.activeAfter = after.active;
  out.stateChanged = after.sig !== s.state.sig;
  out.valueChanged = after.value !== s.state.value;
  out.value = tgt && after.value !== null && shownValue(tgt) !== tgt.value ? '[secret]' : after.value;
  out.detached = !!tgt && !after.connected;
  out.hidden = !!tgt && after.connected && s.shown && !shown(tgt);
  out.hiddenPopup = out.hidden && s.popup;
  // page handlers that ran (issue 27 item 2), an inline one on the target counted too; an
  // aria-disabled target's handler only refuses, so nothing answered there
  const inline = (n) => ['onclick', 'onmousedown', 'onmouseup'].some((a) => (n.getAttribute(a) || '').trim());
  const refused = !!tgt && !!tgt.closest && !!tgt.closest('[aria-disabled=true]');
  out.handled = refused ? 0 : (V.handled || 0) - (s.handled || 0) + (tgt && tgt.getAttribute && inline(tgt) ? 1 : 0);
  const landed = (V.landed || []).slice(s.landed || 0);
  out.landed = landed.length;
  out.missed = !!tgt && landed.length > 0 && !landed.some((t) => t === tgt || tgt.contains(t) || (t.contains && t.contains(tgt)));
  out.missedOn = out.missed ? describe(landed[landed.length - 1]) : '';
  const ctl = controlled(tgt);
  out.controls = ctl && s.controls ? { what: ctl.what, before: s.controls.shown || s.controls.expanded === 'true',
    after: ctl.shown || ctl.expanded === 'true' } : null;
  out.selected = !s.selected && String(win.getSelection ? win.getSelection() : '').trim().length > 0;
  const moved = s.values.find(([f, v]) => f.isConnected && f.value !== v);
  out.field = moved ? [fieldName(moved[0]), shownValue(moved[0])] : null;
  out.children = tgt ? Array.from(tgt.querySelectorAll('a[href], button, [role=button], [role=link], [role=option], [role=menuitem], input, [onclick], [tabindex]'))
    .map((c) => (c.innerText || c.getAttribute('aria-label') || c.getAttribute('title') || c.value || '').replace(/\s+/g, ' ').trim())
    .filter((t) => t).slice(0, 4) : [];
  // end "effect": end the session only when the DOM already shows an effect (the caller
  // reads it as the final account and skips one more round trip)
  const shows = out.causal + out.late > 0 || out.url || out.focusMoved || out.scrolled || out.modal !== 0
    || out.stateChanged || out.valueChanged || out.detached || out.hidden || !!out.field;
  if (end === true || (end === 'effect' && shows)) {
    V.session = null;
    out.ended = true;
  }
  return out;
}
