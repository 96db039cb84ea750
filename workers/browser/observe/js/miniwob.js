// MiniWoB++ episode control, mirroring miniwob's SeleniumInstance and BrowserGym's setup:
// seed with Math.seedrandom, optionally lift core.EPISODE_MAX_TIME, core.startEpisodeReal(),
// then read the WOB_* globals. The human HUD (reward display, click canvas, query) is hidden
// as BrowserGym removes it: the utterance reaches the agent as its instruction instead (the
// query keeps its place in the layout, invisible).
// The utterance keeps its icons (issue 7 class 8): core.getUtterance() reads textContent, so
// an icon element in #query would vanish; it is rendered as "[icon: print]" (the snapshot's
// form, js/icon_name.js passed in as `iconName`), an image as its alt text, a painted empty
// box as its colour.
(req, iconName) => {
  // An empty box whose inline style paints it (use-colorwheel-2's "the following color")
  // is named by its colour, #rrggbb.
  function swatchColour(el) {
    if (!el.style || !el.style.backgroundColor) return '';
    const m = getComputedStyle(el).backgroundColor.match(/^rgba?\((\d+), (\d+), (\d+)/);
    return m ? '#' + m.slice(1, 4).map((v) => Number(v).toString(16).padStart(2, '0')).join('') : '';
  }
  function rendered(root) {
    let out = '';
    let icons = 0;
    const walk = (n) => {
      for (const c of n.childNodes) {
        if (c.nodeType === 3) { out += c.data; continue; }
        if (c.nodeType !== 1) continue;
        const alt = c.localName === 'img' ? c.getAttribute('alt') || c.getAttribute('title') || '' : '';
        const icon = !/\S/.test(c.textContent) ? alt || c.getAttribute('aria-label') || c.getAttribute('title') || iconName(c) : '';
        const swatch = !icon && !/\S/.test(c.textContent) ? swatchColour(c) : '';
        if (icon) { out += ' [icon: ' + icon + '] '; icons += 1; }
        else if (swatch) { out += ' [colour: ' + swatch + '] '; icons += 1; }
        else walk(c);
      }
    };
    walk(root);
    return icons ? out.replace(/\s+/g, ' ').trim() : null;
  }
  if (typeof core === "undefined" || typeof genProblem === "undefined") {
    throw new Error("not a MiniWoB++ task page (core.js / genProblem missing)");
  }
  if (req.op === "start") {
    if (!document.getElementById("webagent-miniwob-hud")) {
      const style = document.createElement("style");
      style.id = "webagent-miniwob-hud";
      // #query keeps its box: pages that place a click by pageY minus the query's height
      // (circle-center, find-midpoint, bisect-angle, right-angle, hot-cold) stay exact.
      style.textContent =
        "#reward-display, #click-canvas { display: none !important; }" +
        " #query { visibility: hidden !important; }";
      document.head.appendChild(style);
    }
    Math.seedrandom(req.seed);
    if (req.maxTimeMs !== null) {
      core.EPISODE_MAX_TIME = req.maxTimeMs;
    }
    core.startEpisodeReal();
    let utterance = core.getUtterance();
    const query = document.getElementById("query");
    if (typeof utterance === "string" && query) utterance = rendered(query) || utterance;
    return { utterance, maxTimeMs: core.EPISODE_MAX_TIME };
  }
  if (req.op === "state") {
    return {
      done: WOB_DONE_GLOBAL === true,
      reward: Number(WOB_REWARD_GLOBAL),
      rawReward: Number(WOB_RAW_REWARD_GLOBAL),
      reason: WOB_REWARD_REASON === null || WOB_REWARD_REASON === undefined
        ? null : String(WOB_REWARD_REASON),
      episodeId: Number(WOB_EPISODE_ID),
    };
  }
  throw new Error("unknown miniwob op: " + req.op);
}
