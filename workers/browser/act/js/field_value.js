// What a field holds now: its value (not a <button>'s), a contenteditable's text, else null.
// Called by ElementHandle.evaluate from actions.read_value.
(e) => 'value' in e && e.localName !== 'button' ? String(e.value)
  : (e.isContentEditable ? e.innerText : null)
