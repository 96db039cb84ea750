// What kind of element a form action is about to touch, in one round trip. Called by
// ElementHandle.evaluate from actions.type_text (editable), handlers_input (kind, select,
// options), files.upload (file), workflows (select, typeable) and workflows_form
// (inputType, checked).
// kind: an <input>'s lower-cased type (default 'text'), else the tag name; inputType: the
// same for an <input>, else ''; options: a native <select>'s option labels, else null.
(e) => {
  const tag = e.localName;
  const input = tag === 'input';
  const inputType = input ? (e.type || 'text').toLowerCase() : '';
  const select = tag === 'select';
  return {
    tag,
    kind: input ? inputType : tag,
    inputType,
    editable: e.isContentEditable || ['input', 'textarea'].includes(tag),
    typeable: e.isContentEditable || tag === 'textarea' || (input
      && !['checkbox', 'radio', 'button', 'submit', 'file', 'range', 'color'].includes(e.type)),
    select,
    file: input && e.type === 'file',
    checked: !!e.checked || e.getAttribute('aria-checked') === 'true',
    options: select ? [...e.options].map((o) => o.label || o.text) : null,
  };
}
