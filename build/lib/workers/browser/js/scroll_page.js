// Scroll the window by a fraction of the viewport.
([dx, dy, amount]) => window.scrollBy({
  left: dx * innerWidth * amount, top: dy * innerHeight * amount, behavior: 'instant' })
