// A pointer path to `el` that stays inside the menu holding the pointer (issue 31 item 4).
// args: [tx, ty, cx, cy] in viewport pixels: the target's press point, and where the caller
// last put the pointer (used when the tracker saw no pointer move: V.mouse, verify_tracker.js).
// The hover root is the lowest element holding both what is under the pointer and the target
// (a menu's <li>: its :hover keeps the submenu open while the pointer is over any of its
// parts). Returns {mouse, via}: the pointer now, and null when there is no root worth keeping
// (the page itself: any path will do), else the corners of the first path whose every sampled point is over the root: [] for the
// straight line, [[tx, cy]] for across-then-down, [[cx, ty]] for down-then-across; [] too
// when none is clear (the straight line, as short as a path gets).
(el, [tx, ty, lastX, lastY]) => {
  const V = window.__webagentVerify;
  const mouse = (V && V.mouse) || null;
  const [cx, cy] = mouse || [lastX, lastY];
  const under = document.elementFromPoint(cx, cy);
  let root = under;
  while (root && !root.contains(el)) root = root.parentElement;
  if (!root || root === document.body || root === document.documentElement) return { mouse, via: null };
  const inside = (x, y) => {
    const hit = document.elementFromPoint(x, y);
    return !!hit && root.contains(hit);
  };
  const clear = (points) => {
    for (let i = 0; i + 1 < points.length; i++) {
      const [x0, y0] = points[i], [x1, y1] = points[i + 1];
      const n = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / 6));
      for (let k = 1; k <= n; k++) {
        if (!inside(x0 + ((x1 - x0) * k) / n, y0 + ((y1 - y0) * k) / n)) return false;
      }
    }
    return true;
  };
  for (const via of [[], [[tx, cy]], [[cx, ty]]]) {
    if (clear([[cx, cy], ...via, [tx, ty]])) return { mouse, via };
  }
  return { mouse, via: [] };
}
