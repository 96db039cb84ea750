// What an action would touch: the element's role, texts, link target and owning form.
// Read-only. Called as handle.evaluate(script) on the target, or with null for the
// focused element (a key press). Facts for the sensitive-action rules
// (workers/agent/people/approvals.py); the visible text and the aria-label are both reported so
// neither can hide the other.
(el) => {
  const clean = (s) => String(s || '').replace(/\s+/g, ' ').trim();
  if (!el) {
    el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    if (!el || el === document.body) return null;
  }
  if (el.nodeType !== 1) el = el.parentElement;
  if (!el) return null;
  const actionable = el.closest('button, a[href], input[type=submit], input[type=image], input[type=button], [role=button], [role=link], [role=menuitem]');
  if (actionable) el = actionable;
  const tag = el.tagName.toLowerCase();
  const type = tag === 'input' ? String(el.type || 'text').toLowerCase() : '';
  const roles = { a: 'link', button: 'button', select: 'combobox', textarea: 'textbox' };
  const inputRoles = { submit: 'button', button: 'button', image: 'button', reset: 'button', checkbox: 'checkbox', radio: 'radio' };
  const role = el.getAttribute('role') || roles[tag] || (tag === 'input' ? inputRoles[type] || 'textbox' : '');
  const labelledBy = clean((el.getAttribute('aria-labelledby') || '').split(/\s+/)
    .map((id) => { const n = id && document.getElementById(id); return n ? n.textContent : ''; }).join(' '));
  const labels = el.labels ? [...el.labels].map((l) => l.textContent).join(' ') : '';
  const valueText = tag === 'input' && ['submit', 'button', 'reset'].includes(type) ? el.value : '';
  const parts = [el.getAttribute('aria-label'), labelledBy, el.innerText || el.textContent, valueText,
    labels, el.getAttribute('title'), el.getAttribute('alt'), el.getAttribute('placeholder'), el.getAttribute('name')];
  const name = unicodeText.cut(clean([...new Set(parts.map(clean).filter(Boolean))].join(' ')), 300);
  const form = el.form || el.closest('form');
  const submits = !!form && ((tag === 'button' && el.type === 'submit') ||
    (tag === 'input' && (type === 'submit' || type === 'image')));
  let formAction = '', formMethod = '', formText = '';
  if (form) {
    const override = submits && el.getAttribute('formaction') ? el.formAction : '';
    // attributes, not form.action / form.method: a control named "action" or "method"
    // shadows those properties (DOM clobbering, e.g. Misago's admin bulk-action forms)
    const attr = (name) => Element.prototype.getAttribute.call(form, name) || '';
    let own = '';
    try { own = attr('action') ? new URL(attr('action'), document.baseURI).href : ''; } catch (e) { own = ''; }
    formAction = override || own || location.href;
    formMethod = String((submits && el.getAttribute('formmethod')) || attr('method') || 'get').toLowerCase();
    const legend = form.querySelector('legend');
    const texts = [form.getAttribute('aria-label'), form.getAttribute('title'), form.getAttribute('name'),
      legend ? legend.textContent : ''];
    if (!submits) {  // Enter or a typed submit presses the form's default button
      const def = form.querySelector('button:not([type]), button[type=submit], input[type=submit], input[type=image]');
      if (def) texts.push(def.getAttribute('aria-label'), def.innerText || def.value || def.textContent);
    }
    formText = unicodeText.cut(clean(texts.map(clean).filter(Boolean).join(' ')), 300);
  }
  // typed text in the same form or dialog: recipients or a message that would go out
  const box = form || el.closest('dialog, [role=dialog], [role=alertdialog], [role=form]');
  const typed = (f) => (f.isContentEditable ? f.textContent : f.value || '').trim() !== '';
  const fields = 'textarea, [contenteditable=""], [contenteditable=true], input:not([type]), ' +
    'input[type=text], input[type=email], input[type=tel], input[type=url], input[type=search]';
  const composed = !!box && [...box.querySelectorAll(fields)].some(typed);
  return {
    role, tag, name, input_type: type, composed,
    href: tag === 'a' && el.href ? String(el.href) : '',
    download: tag === 'a' && el.hasAttribute('download'),
    form_action: formAction, form_method: formMethod, form_text: formText, submits,
  };
}
