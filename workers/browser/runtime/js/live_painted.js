// Live view (issue 23 item 2): has this document adopted the private-region sheet
// (js/blackout.js)? A frame is sent to watchers only when it has.
() => {
  const state = window.__webagentBlackout;
  return !!state && document.adoptedStyleSheets.includes(state.sheet);
}
