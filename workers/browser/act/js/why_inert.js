// Why a click changed nothing (wave 5 item 7, relay run finding 11): clues the model can act
// on, from the target and the page: disabled, pointer-events none, covered by something else,
// nothing listening for clicks on it or its ancestors, and a countdown or time-up text.
// Listeners are the ones js/init.js saw added to elements plus on* handlers; a listener on
// document or window (delegation) would have run and been counted as handled (verify.py).
(el) => {
  const g = window.__webagent || {};
  const out = [];
  const short = (s) => (s || '').replace(/\s+/g, ' ').trim().slice(0, 40);
  if (el.matches(':disabled') || el.closest('[aria-disabled=true]')) out.push('it is disabled');
  if (getComputedStyle(el).pointerEvents === 'none') out.push('it ignores the pointer (pointer-events: none)');
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  if (hit && !el.contains(hit) && !hit.contains(el)) {
    out.push(`something else is on top of it (${hit.localName} ${JSON.stringify(short(hit.innerText || hit.getAttribute('aria-label')))})`);
  }
  const ON = ['onclick', 'onmousedown', 'onmouseup', 'onpointerdown', 'onpointerup', 'ondblclick'];
  const listens = (n) => (g.listeners && g.listeners.has(n)) || ON.some((k) => n[k] || (n.hasAttribute && n.hasAttribute(k)));
  // a native action: a link, a form's button, a field, a label, a summary
  const native = (n) => n.matches('a[href],input,select,textarea,label,summary,[contenteditable],button[type=submit],form button:not([type])');
  let handled = !!(window.jQuery && window.jQuery._data && window.jQuery._data(document, 'events'));
  for (let n = el; n && !handled; n = n.parentElement || (n.getRootNode && n.getRootNode().host)) handled = listens(n) || native(n);
  if (!handled) {
    let any = 0;
    for (const n of document.querySelectorAll('*')) if (listens(n) && ++any) break;
    out.push(any ? 'no click handler on it or its ancestors (the page listens elsewhere: it may not be a control)'
      : 'no click handler on it, its ancestors or any other element of the page: clicking it does nothing here');
  }
  const text = document.body ? document.body.innerText : '';
  const timer = /(time'?s up|time is up|expired|too late|\b\d{1,2}:\d\d\b|\b\d+\s*(?:s|sec|secs|seconds?)\s*(?:left|remaining)\b|wait \d+)/i.exec(text);
  if (timer) out.push(`the page shows ${JSON.stringify(short(timer[0]))}`);
  return out;
}
