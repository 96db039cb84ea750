// Position of this <iframe>/<frame> element among its document's iframes and frames
// (snapper._child maps a probe's frame index back to a Playwright Frame).
(e) => Array.from(e.ownerDocument.querySelectorAll('iframe, frame')).indexOf(e)
