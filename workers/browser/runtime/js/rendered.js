// Resolves once the page has rendered a frame after now (two animation frames); a hidden page
// renders no frame, so it resolves after 500 ms at the latest (runtime/secret_boxes.py).
() => new Promise((r) => {
  requestAnimationFrame(() => requestAnimationFrame(r));
  setTimeout(r, 500);
})
