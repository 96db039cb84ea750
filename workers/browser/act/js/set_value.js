// type_at's last resort (seed 000 App. C.3): set a field's value through the native value
// setter of its own realm (frameworks that wrap `value` still see the change) and dispatch
// input and change, as a user's typing would. Returns the value the field now holds.
(el, text) => {
  const win = el.ownerDocument.defaultView;
  const proto = el.localName === 'textarea' ? win.HTMLTextAreaElement.prototype : win.HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
  setter.call(el, text);
  el.dispatchEvent(new win.InputEvent('input', { bubbles: true, composed: true, data: text, inputType: 'insertText' }));
  el.dispatchEvent(new win.Event('change', { bubbles: true }));
  return el.value;
}
