// Text alternative of an icon drawn by CSS (icon fonts, sprite sheets), from its class names:
// fa-search -> "search", ql-bold -> "bold", ui-icon-print -> "print", glyphicon-trash -> "trash", bi-x-lg -> "x-lg".
// Issue 7 classes 4 and 8: shared by snapshot.js (lines) and miniwob.js (the instruction).
(el) => {
  const cls = el && typeof el.getAttribute === 'function' ? el.getAttribute('class') || '' : '';
  if (!cls || cls.length > 300) return '';
  const PREFIX = /^(?:fa|fas|far|fab|glyphicon|ui-icon|bi|mdi|octicon|ti|la|ion|ion-md|ion-ios|feather|dashicons|el-icon|lni|ri|bx|bxs|codicon|wi|icon|icons|gg|pi|ql)-(.+)$/;
  const NOT_NAMES = /^(?:fw|lg|xs|sm|\dx|spin|pulse|border|inverse|stack(?:-.*)?|rotate-.*|flip-.*|solid|regular|brands|light|thin|duotone|sharp|btn|button|wrapper|wrap|container|box|link|text|label|only|left|right|small|large|white|black|inline|block|circle|fill|outline|stroke|even|transparent|picker|picker-label|picker-options|picker-item|toolbar|formats|active|color-label|full)$/;
  for (const c of cls.trim().split(/\s+/)) {
    const m = PREFIX.exec(c);
    if (m && !NOT_NAMES.test(m[1]) && /^[a-z][a-z0-9-]*$/i.test(m[1]) && m[1].length <= 40) return m[1];
  }
  // a bare class that is a known icon word (MiniWoB's `<span class="trash">`, a `star`)
  const WORDS = /^(?:trash|delete|star|reply|retweet|share|like|dislike|heart|more|edit|close|search|menu|settings|print|download|upload|plus|minus|add|remove|bookmark|flag|archive|forward|send|refresh|home|user|info|help|copy|paste|save|undo|redo|bold|italic|underline|link|play|pause|stop|next|prev|previous|back|expand|collapse|check|filter|sort|calendar|mail|email|phone|lock|unlock|pin|tag|cart|bell|camera|comment|chat|upvote|downvote|mute|block|report|favorite|favourite)$/;
  for (const c of cls.trim().split(/\s+/)) {
    if (WORDS.test(c)) return c;
  }
  for (const c of cls.trim().split(/\s+/)) {  // the suffix form: reply-icon -> "reply"
    const m = /^([a-z][a-z0-9]*)[-_]icon$/i.exec(c);
    if (m && !NOT_NAMES.test(m[1]) && m[1].length <= 40) return m[1];
  }
  return '';
}
