// Text shortening that never splits a character (issue 27 item 1): cuts fall on grapheme
// boundaries (Intl.Segmenter, else code points), lone surrogates become U+FFFD, and lengths
// are counted in code points, as Python counts them. Bound as `unicodeText` in every script
// that names it (runtime/scripts.py js()).
(() => {
  const seg = typeof Intl !== 'undefined' && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: 'grapheme' }) : null;
  const whole = (s) => (typeof s.toWellFormed === 'function' ? s.toWellFormed() : s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));
  // the longest head of s of at most n UTF-16 units that ends between two graphemes
  const cut = (s, n) => {
    s = whole(String(s == null ? '' : s));
    if (s.length <= n) return s;
    let end = 0;
    if (seg) {
      for (const { index, segment } of seg.segment(s)) {
        if (index + segment.length > n) break;
        end = index + segment.length;
      }
      return s.slice(0, end);
    }
    end = n;
    const c = s.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end -= 1;
    return s.slice(0, end);
  };
  const clip = (s, n) => { s = whole(String(s == null ? '' : s)); return s.length > n ? cut(s, n - 1) + '…' : s; };
  // code points, the unit Python's len() counts
  const count = (s) => { let k = 0; for (const _ of String(s)) k += 1; return k; };
  return { cut, clip, count, whole };
})()
