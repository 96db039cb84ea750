// Installed with add_init_script before any page script runs (every frame):
// remembers closed shadow roots and elements that get pointer listeners, so the
// snapshot walker can see what page JS hides from it (issue: Perception; seed 001 A.1.3),
// and elements that listen to typing themselves (`typed`, js/verify_suggest.js) or to
// drops (`drops`, snapshot.js: drop targets get refs).
// `checked`/`cands`: possible declarative closed-root hosts, see snapshot.js hostCandidate.
(() => {
  const KEY = '__webagent';
  if (window[KEY]) return;
  const g = { closed: new WeakMap(), listeners: new WeakSet(), typed: new WeakSet(), drops: new WeakSet(), frameIds: new WeakMap(), snap: null, checked: new WeakSet(), cands: [] };
  Object.defineProperty(window, KEY, { value: g, configurable: false, enumerable: false, writable: false });
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    if (init && init.mode === 'closed') g.closed.set(this, root);
    return root;
  };
  const POINTER = new Set(['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'dblclick', 'touchstart']);
  // a field that reacts to each keystroke itself (evidence for verify_suggest.js)
  const TYPING = new Set(['input', 'keyup', 'keydown', 'keypress', 'beforeinput']);
  // a drop target (wave 5b): `drag` needs a ref for it even when it has no text
  const DROP = new Set(['dragover', 'dragenter', 'drop']);
  const add = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (type, listener, options) {
    if (POINTER.has(type) && this instanceof Element) g.listeners.add(this);
    if (TYPING.has(type) && this instanceof Element) g.typed.add(this);
    if (DROP.has(type) && this instanceof Element) g.drops.add(this);
    return add.call(this, type, listener, options);
  };
})();
