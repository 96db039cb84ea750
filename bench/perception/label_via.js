// Reachability pass only: a <label> whose control carries one of our refs acts through
// that ref (clicking the label focuses/toggles the control), so mark it; "clear" undoes it.
(op) => {
  if (op === 'clear') {
    for (const el of document.querySelectorAll('[data-agent-via]')) el.removeAttribute('data-agent-via');
    return 0;
  }
  let n = 0;
  for (const label of document.querySelectorAll('label')) {
    const c = label.control;
    if (c && c.hasAttribute('data-agent-id')) { label.setAttribute('data-agent-via', c.getAttribute('data-agent-id')); n += 1; }
  }
  return n;
}
