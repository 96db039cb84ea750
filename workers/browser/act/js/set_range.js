// Set an <input type=range> to a value in one action (issue 26 item 10): the native value
// setter of its own realm (the browser clamps and snaps to min/max/step), then the events a
// dragged thumb sends: pointer/mouse down, input, change, and the release (pointer/mouse up)
// for pages that check on release. Returns the value the range now holds.
(el, value) => {
  const win = el.ownerDocument.defaultView;
  const setter = Object.getOwnPropertyDescriptor(win.HTMLInputElement.prototype, 'value').set;
  const r = el.getBoundingClientRect();
  const at = { bubbles: true, composed: true, cancelable: true, clientX: r.x + r.width / 2, clientY: r.y + r.height / 2 };
  el.dispatchEvent(new win.PointerEvent('pointerdown', { ...at, buttons: 1 }));
  el.dispatchEvent(new win.MouseEvent('mousedown', { ...at, buttons: 1 }));
  setter.call(el, String(value));
  el.dispatchEvent(new win.Event('input', { bubbles: true, composed: true }));
  el.dispatchEvent(new win.Event('change', { bubbles: true }));
  el.dispatchEvent(new win.PointerEvent('pointerup', at));
  el.dispatchEvent(new win.MouseEvent('mouseup', at));
  return el.value;
}
