// Compound workflows (seed 001 §2.5, App. A.5): frame.evaluate(script, [op, arg]).
// op "mark": remember every element shown now (the section's element list before the act);
// op "diff": the actionable elements shown now that were not shown at "mark" (the revealed
//   options of a dropdown, the suggestions under a search box), kept for "pick"; returns
//   [{label, tag, role}] plus `form` when they look like a form (>= 2 inputs and a submit-like
//   button: App. A.5 IsForm) and `same` when they are the very elements of the previous diff;
// op "pick": the i-th element of the last diff (an ElementHandle for the cascade).
// ElementHandle.evaluate(el, [op]) on a form field or the form:
// op "kind": how to fill the field: text | select | checkbox | radio | file | combobox | other;
// op "state": the field's {label, kind, value, required, invalid, empty} (a radio: its group);
// op "form": the state of every field of the field's form (or the nearest ancestor holding
//   several fields; one entry per radio group) and the submit-like button's label;
// op "submit": that submit-like button (an ElementHandle), or null;
// op "radio": the radio of the field's group labelled (or valued) `arg`, or null; "radios":
//   the labels of the group.
(target, args) => {
  const isEl = target && target.nodeType === 1;
  const [op, arg] = isEl ? args : target;
  const doc = isEl ? target.ownerDocument : document;
  const win = doc.defaultView;
  const norm = (t) => (t || '').replace(/\s+/g, ' ').trim();
  const shown = (n) => {
    const r = n.getBoundingClientRect();
    if (r.width <= 0 || r.height <= 0) return false;
    return !n.checkVisibility || n.checkVisibility({ visibilityProperty: true, opacityProperty: true });
  };
  const all = () => {
    const out = [];
    const visit = (root) => {
      for (const n of root.querySelectorAll('*')) {
        out.push(n);
        if (n.shadowRoot) visit(n.shadowRoot);
      }
    };
    visit(doc);
    return out;
  };
  const ROLES = new Set(['option', 'menuitem', 'menuitemradio', 'menuitemcheckbox', 'treeitem',
    'gridcell', 'link', 'button', 'tab', 'radio', 'checkbox', 'switch']);
  const actionable = (n) => ROLES.has(n.getAttribute('role'))
    || ['a', 'button', 'input', 'select', 'textarea', 'li', 'summary'].includes(n.localName)
    || n.hasAttribute('onclick') || (n.hasAttribute('tabindex') && n.getAttribute('tabindex') !== '-1');
  const label = (n) => norm(n.getAttribute('aria-label')) || norm(n.innerText || n.textContent)
    || norm(n.value) || norm(n.getAttribute('title')) || norm(n.getAttribute('placeholder'));
  const SUBMIT = /\b(submit|send|save|register|sign ?up|continue|next|apply|confirm|book|search|go|done|finish|create|place order|pay)\b/i;

  if (op === 'mark') {
    win.__waShown = new WeakSet(all().filter(shown));
    return true;
  }
  if (op === 'diff') {
    const before = win.__waShown || new WeakSet();
    let found = all().filter((n) => !before.has(n) && actionable(n) && shown(n));
    // a container of several candidates is a list, not an option; keep the outermost of the rest
    found = found.filter((n) => found.filter((m) => m !== n && n.contains(m)).length < 2);
    found = found.filter((n) => !found.some((m) => m !== n && m.contains(n)));
    found = found.filter((n) => label(n));
    const prev = win.__waRevealed || [];
    const same = prev.length === found.length && found.every((n, i) => n === prev[i]);
    win.__waRevealed = found;
    const inputs = found.filter((n) => ['input', 'select', 'textarea'].includes(n.localName)).length;
    const submit = found.some((n) => (n.type === 'submit') || (['button', 'a'].includes(n.localName) && SUBMIT.test(label(n))));
    return { items: found.slice(0, 100).map((n) => ({ label: unicodeText.cut(label(n), 120), tag: n.localName,
      role: n.getAttribute('role') || '' })), form: inputs >= 2 && submit, same };
  }
  if (op === 'pick') return (win.__waRevealed || [])[arg] || null;

  const kindOf = (n) => {
    const role = n.getAttribute('role');
    if (n.localName === 'select') return 'select';
    if (n.localName === 'textarea' || n.isContentEditable || role === 'textbox') return 'text';
    if (n.localName === 'input') {
      const t = (n.type || 'text').toLowerCase();
      if (t === 'checkbox' || t === 'radio' || t === 'file') return t;
      if (['submit', 'button', 'reset', 'image', 'hidden'].includes(t)) return 'other';
      return 'text';
    }
    if (role === 'checkbox' || role === 'switch') return 'checkbox';
    if (role === 'radio') return 'radio';
    if (role === 'combobox' || role === 'listbox' || n.getAttribute('aria-haspopup') === 'listbox') return 'combobox';
    return 'other';
  };
  if (op === 'kind') return kindOf(target);

  const FIELDS = 'input:not([type=hidden]):not([type=submit]):not([type=button]):not([type=reset]), select, textarea, [role=combobox], [role=textbox], [role=checkbox], [contenteditable=true]';
  const formOf = (n) => {
    if (n.form) return n.form;
    const f = n.closest('form');
    if (f) return f;
    for (let p = n.parentElement; p; p = p.parentElement) {
      if (p.querySelectorAll(FIELDS).length >= 2) return p;
    }
    return doc.body;
  };
  const form = formOf(target);
  const fieldLabel = (n) => {
    const byFor = n.id && doc.querySelector(`label[for="${CSS.escape(n.id)}"]`);
    const wrap = n.closest('label');
    const ids = (n.getAttribute('aria-labelledby') || '').split(/\s+/).filter(Boolean);
    const by = norm(ids.map((id) => { const l = doc.getElementById(id); return l ? l.innerText : ''; }).join(' '));
    if (n.type === 'radio' && n.name) {
      const legend = n.closest('fieldset') && n.closest('fieldset').querySelector('legend');
      return norm(legend && legend.innerText) || n.name;
    }
    return norm(n.getAttribute('aria-label')) || by || norm(byFor && byFor.innerText) || norm(wrap && wrap.innerText)
      || norm(n.getAttribute('placeholder')) || norm(n.name) || n.localName;
  };
  const submitOf = () => {
    const buttons = [...form.querySelectorAll('button, input[type=submit], input[type=image], [role=button]')].filter(shown);
    return buttons.find((b) => b.type === 'submit' && b.localName !== 'button' || (b.localName === 'button' && (b.getAttribute('type') || 'submit') === 'submit'))
      || buttons.find((b) => SUBMIT.test(label(b))) || null;
  };
  if (op === 'submit') return submitOf();
  const stateOf = (n) => {
    const kind = kindOf(n);
    let value;
    if (kind === 'radio' && n.name) {
      const on = [...form.querySelectorAll('input[type=radio]')].find((r) => r.name === n.name && r.checked);
      value = on ? (norm(on.closest('label') && on.closest('label').innerText) || on.value) : '';
    } else if (kind === 'checkbox' || kind === 'radio') {
      value = n.checked || n.getAttribute('aria-checked') === 'true' ? 'checked' : '';
    } else if (kind === 'select') {
      value = [...n.selectedOptions].filter((o) => o.value !== '').map((o) => norm(o.label || o.text)).join(', ');
    } else {
      value = norm('value' in n ? n.value : n.innerText);
      // passwords and fields masked for a secret (mask_secret.js) are never echoed
      const masked = n.type === 'password' || (getComputedStyle(n).webkitTextSecurity || 'none') !== 'none';
      if (masked && value) value = '***';
    }
    const required = !!n.required || n.getAttribute('aria-required') === 'true';
    const invalid = n.getAttribute('aria-invalid') === 'true' || !!(n.willValidate && !n.checkValidity());
    return { label: unicodeText.cut(fieldLabel(n), 80), kind, value: unicodeText.cut(value, 120), required, invalid, empty: value === '' };
  };
  if (op === 'state') return stateOf(target);
  if (op === 'radio') {  // the radio of target's group whose label or value is `arg`
    const group = [...form.querySelectorAll('input[type=radio]')].filter((r) => r.name && r.name === target.name);
    const text = (r) => norm((r.closest('label') && r.closest('label').innerText) || (r.id && doc.querySelector(`label[for="${CSS.escape(r.id)}"]`)?.innerText) || r.value);
    const want = norm(arg).toLowerCase();
    return group.find((r) => text(r).toLowerCase() === want || r.value.toLowerCase() === want)
      || group.find((r) => text(r).toLowerCase().includes(want)) || null;
  }
  if (op === 'radios') {
    return [...form.querySelectorAll('input[type=radio]')].filter((r) => r.name && r.name === target.name)
      .map((r) => norm((r.closest('label') && r.closest('label').innerText) || r.value));
  }
  if (op === 'form') {
    const groups = new Set();
    const fields = [...form.querySelectorAll(FIELDS)].filter(shown).filter((n) => {
      if (kindOf(n) !== 'radio' || !n.name) return true;
      if (groups.has(n.name)) return false;
      groups.add(n.name);
      return true;
    }).map(stateOf);
    const button = submitOf();
    return { fields, submit: button ? unicodeText.cut(label(button), 80) : null };
  }
  return null;
}
