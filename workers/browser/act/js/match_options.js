// Option indices of a <select> for the model's choices: visible label first, then value,
// then label ignoring case and spacing (one lookup, no waiting). Unmatched choices -> missing.
(sel, wanted) => {
  const opts = Array.from(sel.options || []);
  const norm = (s) => String(s).replace(/\s+/g, ' ').trim().toLowerCase();
  const label = (o) => (o.label || o.text || '').replace(/\s+/g, ' ').trim();
  const indices = [];
  const missing = [];
  for (const w of wanted) {
    let i = opts.findIndex((o) => label(o) === String(w).trim());
    if (i < 0) i = opts.findIndex((o) => o.value === String(w));
    if (i < 0) i = opts.findIndex((o) => norm(label(o)) === norm(w));
    if (i < 0) missing.push(String(w)); else indices.push(i);
  }
  return { indices, missing, labels: opts.slice(0, 15).map(label) };
}
