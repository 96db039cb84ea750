// Marks (on = true) or unmarks an element with data-webagent-aria="1", so that
// handlers_read.accessibility_tree can locate it for Playwright's aria_snapshot.
(e, on) => on ? e.setAttribute('data-webagent-aria', '1') : e.removeAttribute('data-webagent-aria')
