// A spin button's number and bounds, for stepping it by its arrow keys (relay finding 3:
// a spinner that refused typed text and took only ArrowUp/ArrowDown). spin: an <input
// type=number> or role=spinbutton; value: its number (an input's value, else
// aria-valuenow, else its text), null when it holds none; min, max, step: null when unset.
// Called by ElementHandle.evaluate from spin.step_to.
(e) => {
  const num = (v) => (v === null || v === undefined || String(v).trim() === '' || Number.isNaN(Number(v))
    ? null : Number(v));
  const number = e.localName === 'input' && (e.type || '').toLowerCase() === 'number';
  const spin = number || (e.getAttribute('role') || '').toLowerCase() === 'spinbutton';
  const field = e.localName === 'input' || e.localName === 'textarea';
  const value = field ? num(e.value) : (num(e.getAttribute('aria-valuenow')) ?? num(e.textContent));
  const attr = (name, aria) => (number ? num(e.getAttribute(name)) : null) ?? num(e.getAttribute(aria));
  return { spin, value, min: attr('min', 'aria-valuemin'), max: attr('max', 'aria-valuemax'),
    step: number ? num(e.getAttribute('step')) : null };
}
