// Effect tracker for verify-act-verify (seed 002; seed 004 App. F.2.2), one per document.
// Installed as an init script in every frame (and lazily by verify.js): a MutationObserver
// that tells apart mutations caused by input (delivered while an input event's task and its
// microtasks run: pointer/mouse/key/input/change/submit/focus events) from ambient ones
// (timers, clocks, tickers). An element whose non-input mutations come in two or more
// separate bursts between two inputs, each at least SHADOW_MS after the last input, is
// "ambient"; its mutations never count as the effect of an action. A burst in an input's
// shadow is likely that input's late effect (a timer or fetch callback): a counter each click
// updates a moment later changes once per click and must stay an effect every time.
// Our own overlays and attributes (data-webagent-*, data-agent-id) are ignored. The last
// pointer position is kept (V.mouse) so a cursor path starts where the pointer really is;
// the times of the last input event and of the last non-ambient mutation (V.inputAt,
// V.changedAt) let settle.js start its quiet window when the page last moved.
(() => {
  if (window.__webagentVerify) return;
  const EVENTS = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick', 'auxclick',
    'contextmenu', 'keydown', 'keypress', 'keyup', 'beforeinput', 'input', 'change', 'submit',
    'focusin', 'focusout', 'reset', 'select', 'toggle'];
  const BURST_MS = 30;
  const SHADOW_MS = 1000;
  const MAX_RECORDS = 3000;
  const V = { causal: 0, bursts: new WeakMap(), session: null, epoch: 0, inputAt: -1e9 };
  V.isAmbient = (el) => !!(V.bursts.get(el) || {}).ambient;
  const elOf = (n) => (n && n.nodeType === 1 ? n : n && n.parentElement);
  const own = (r, el) => (r.type === 'attributes' && /^data-(agent|webagent)/.test(r.attributeName || ''))
    || (el.closest && el.closest('[data-webagent-overlay]'))
    || Array.from(r.addedNodes).some((n) => n.nodeType === 1 && n.hasAttribute && n.hasAttribute('data-webagent-overlay'))
    || Array.from(r.removedNodes).some((n) => n.nodeType === 1 && n.hasAttribute && n.hasAttribute('data-webagent-overlay'));
  function kindOf(r) {
    if (r.type === 'attributes') return 'attr';
    if (r.type === 'characterData') return 'text';
    const isEl = (n) => n.nodeType === 1;
    if (Array.from(r.addedNodes).some(isEl)) return 'added';
    if (Array.from(r.removedNodes).some(isEl)) return 'removed';
    return 'text';
  }
  function burst(el, now) {
    const b = V.bursts.get(el) || { n: 0, last: -1e9, epoch: -1, ambient: false };
    if (now - b.last > BURST_MS && now - V.inputAt >= SHADOW_MS) {
      if (b.epoch !== V.epoch) { b.epoch = V.epoch; b.n = 0; }
      b.n += 1;
      if (b.n >= 2) b.ambient = true;
    }
    b.last = now;
    V.bursts.set(el, b);
    return b;
  }
  function onRecords(records) {
    if (V.paused) return;  // our own screenshot restyles inputs (caret): never the page's
    const causal = V.causal > 0;
    const now = performance.now();
    for (const r of records) {
      const el = elOf(r.target);
      if (!el || own(r, el)) continue;
      const ambientBefore = V.isAmbient(el);
      if (!ambientBefore) V.changedAt = now;  // settle.js: the quiet window starts here
      if (!causal) burst(el, now);
      const s = V.session;
      if (s && s.records.length < MAX_RECORDS) {
        s.records.push({ el, causal, kind: kindOf(r), ambientBefore, attr: r.attributeName || '' });
      }
    }
  }
  const obs = new MutationObserver(onRecords);
  const start = () => obs.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  start();
  const enter = () => {
    onRecords(obs.takeRecords());  // what happened before this input is not its effect
    V.causal += 1;
    V.epoch += 1;
    V.inputAt = performance.now();
    setTimeout(() => { onRecords(obs.takeRecords()); V.causal -= 1; }, 0);
  };
  for (const t of EVENTS) window.addEventListener(t, enter, true);
  window.addEventListener('mousemove', (e) => { V.mouse = [e.clientX, e.clientY]; }, true);
  // where the pointer's release and click events landed (issue 27 item 3: a hover menu that
  // closed, a drag that ended over text): the session keeps their targets
  V.landed = [];
  for (const t of ['mouseup', 'click', 'drop', 'contextmenu', 'dblclick']) {
    window.addEventListener(t, (e) => {
      if (V.landed.length < 50) V.landed.push(e.composedPath()[0] || e.target);
    }, true);
  }
  // page handlers that ran (issue 27 item 2): "the control answered with the same page" is
  // told apart from "the control did nothing" by the page's own listeners being called
  V.handled = 0;
  const HANDLED = new Set([...EVENTS, 'mousemove', 'pointermove', 'keydown', 'wheel']);
  const KEYS = new Set(['keydown', 'keyup', 'keypress', 'beforeinput', 'input']);
  const wrapped = new WeakMap();
  const proto = EventTarget.prototype;
  const add = proto.addEventListener, remove = proto.removeEventListener;
  V.dbl = new WeakSet();  // targets with a dblclick listener (a click that only selects)
  proto.addEventListener = function (type, fn, opts) {
    if (type === 'dblclick' && fn && this && typeof this === 'object') V.dbl.add(this);
    if (!HANDLED.has(type) || !fn || (typeof fn !== 'function' && typeof fn.handleEvent !== 'function')
      || (this === window && /InjectedScript/.test(new Error().stack || ''))) {  // the driver's own
      return add.call(this, type, fn, opts);
    }
    let w = wrapped.get(fn);
    if (!w) {
      w = function (e) {
        // window/document listeners of pointer events are mostly global (analytics, a
        // click counter): only a key's count there (games take keys on the document)
        if ((this !== window && this !== document) || KEYS.has(e.type)) V.handled += 1;
        return typeof fn === 'function' ? fn.call(this, e) : fn.handleEvent(e);
      };
      wrapped.set(fn, w);
    }
    return add.call(this, type, w, opts);
  };
  proto.removeEventListener = function (type, fn, opts) {
    return remove.call(this, type, (fn && wrapped.get(fn)) || fn, opts);
  };
  V.flush = () => onRecords(obs.takeRecords());
  Object.defineProperty(window, '__webagentVerify', { value: V, configurable: false, enumerable: false, writable: false });
})();
