// Marks from layout the walk cannot see one element at a time (wave 5, relay run findings 5-7),
// run by js/snapshot.js over its finished node list:
// - `grid`: many same-named controls laid out in rows and columns (25 `button "circle"`) get
//   `place` = "row r col c", plus the axis label a short number text sits at on that column
//   or row ("x 1", "y -2") when the labels line up with the columns/rows.
// - `over`: an absolutely positioned block (`span`: its top and bottom) laid laid over the rows of a list (an event over a day calendar's hours) gets
//   `place` = 'on row "9am"' / 'on rows "2pm"-"3pm"' from the list items it spans.
({
  grid(nodes) {
    const groups = new Map();
    for (const n of nodes) {
      // icons without a name already say where they are (`icon at (x,y)`)
      if (!n.interactive || n.id < 0 || (n.col !== null && n.col !== undefined) || n.states.includes('icon')) continue;
      const k = n.role + '\u0000' + n.name;
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(n);
    }
    const centre = (n, i) => n.bbox[i] + n.bbox[i + 2] / 2;
    const levels = (vals, tol) => {
      const out = [];
      for (const v of vals.slice().sort((a, b) => a - b)) if (!out.length || v - out[out.length - 1] > tol) out.push(v);
      return out;
    };
    const rank = (lv, v, tol) => lv.findIndex((l) => Math.abs(l - v) <= tol);
    const texts = nodes.filter((t) => t.role === 'text' && /^[-+−]?\d{1,3}$|^[A-Za-z]$/.test(t.name));
    for (const group of groups.values()) {
      if (group.length < 4) continue;
      const tol = Math.max(2, Math.min(...group.map((n) => Math.min(n.bbox[2], n.bbox[3]))) / 2);
      const ys = levels(group.map((n) => centre(n, 1)), tol), xs = levels(group.map((n) => centre(n, 0)), tol);
      if (ys.length < 2 || xs.length < 2 || ys.length * xs.length > group.length * 1.5) continue;
      const axisX = this.axis(texts, xs, 0, tol), axisY = this.axis(texts, ys, 1, tol);
      for (const n of group) {
        const r = rank(ys, centre(n, 1), tol), c = rank(xs, centre(n, 0), tol);
        if (r < 0 || c < 0) continue;
        let place = `row ${r + 1} col ${c + 1}`;
        const ax = [axisX ? `x ${axisX[c]}` : '', axisY ? `y ${axisY[r]}` : ''].filter(Boolean);
        if (ax.length) place += ` (${ax.join(', ')})`;
        n.place = place;
      }
    }
  },
  // the labels of one axis: short texts on one line across the other axis, one at each level
  // but at most one (the origin's label may sit elsewhere: a gap between - and + is 0)
  axis(texts, lv, i, tol) {
    const j = 1 - i, lines = new Map();
    for (const t of texts) {
      const level = lv.findIndex((v) => Math.abs(t.bbox[i] + t.bbox[i + 2] / 2 - v) <= tol * 2);
      if (level < 0) continue;
      const key = Math.round((t.bbox[j] + t.bbox[j + 2] / 2) / 6);
      if (!lines.has(key)) lines.set(key, new Map());
      if (!lines.get(key).has(level)) lines.get(key).set(level, t.name);
    }
    let best = null;
    for (const line of lines.values()) if (!best || line.size > best.size) best = line;
    if (!best || best.size < lv.length - 1 || best.size < 2) return null;
    const out = lv.map((v, k) => (best.has(k) ? best.get(k) : ''));
    const gap = out.indexOf('');
    if (gap >= 0) {
      const nums = out.filter((v) => v !== '').map((v) => Number(v.replace('−', '-')));
      if (nums.some(isNaN) || !(nums.some((v) => v < 0) && nums.some((v) => v > 0))) return null;
      out[gap] = '0';
    }
    return out;
  },
  over(nodes) {
    // each list item: the box of all its lines, named by its line no other item has ("9am")
    const items = new Map(), seen = new Map();
    for (const n of nodes) {
      if (!n.list || !n.item) continue;
      const k = n.list + '#' + n.item;
      const b = n.bbox, it = items.get(k);
      if (!it) items.set(k, { box: [b[0], b[1], b[0] + b[2], b[1] + b[3]], names: [n.name] });
      else {
        it.box = [Math.min(it.box[0], b[0]), Math.min(it.box[1], b[1]), Math.max(it.box[2], b[0] + b[2]), Math.max(it.box[3], b[1] + b[3])];
        it.names.push(n.name);
      }
      seen.set(n.list + '\u0000' + n.name, (seen.get(n.list + '\u0000' + n.name) || 0) + 1);
    }
    const rows = [];
    for (const [k, it] of items) {
      const list = k.slice(0, k.lastIndexOf('#'));
      const name = it.names.find((x) => x && x.length <= 20 && seen.get(list + '\u0000' + x) === 1);
      if (name) rows.push({ name, box: it.box });
    }
    if (rows.length < 4) return;
    for (const n of nodes) {
      if (n.role !== 'text' || n.list || !n.span) continue;
      const top = n.span[0], bottom = n.span[1];
      // a row counts when the block covers a third of it (or 8 px): borders do not
      const covers = (b) => Math.min(bottom, b[3]) - Math.max(top, b[1]) >= Math.min(8, (b[3] - b[1]) / 3);
      const left = n.bbox[0], right = n.bbox[0] + n.bbox[2];
      const on = rows.filter((r) => covers(r.box) && r.box[0] < right && r.box[2] > left).sort((a, b) => a.box[1] - b.box[1]);
      // rows of a vertical list only: items side by side (a line of axis labels) are no rows
      if (!on.length || on.length > 12 || on.some((r, i) => i && r.box[1] < (on[i - 1].box[1] + on[i - 1].box[3]) / 2)) continue;
      const names = on.map((r) => r.name);
      n.place = names.length === 1 ? `on row ${JSON.stringify(names[0])}` : `on rows ${JSON.stringify(names[0])}-${JSON.stringify(names[names.length - 1])}`;
    }
  },
})
