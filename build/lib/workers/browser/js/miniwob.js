// MiniWoB++ episode control, mirroring miniwob's SeleniumInstance and BrowserGym's setup:
// seed with Math.seedrandom, optionally lift core.EPISODE_MAX_TIME, core.startEpisodeReal(),
// then read the WOB_* globals. The human HUD (reward display, click canvas, query) is hidden
// as BrowserGym removes it: the utterance reaches the agent as its instruction instead.
(req) => {
  if (typeof core === "undefined" || typeof genProblem === "undefined") {
    throw new Error("not a MiniWoB++ task page (core.js / genProblem missing)");
  }
  if (req.op === "start") {
    if (!document.getElementById("webagent-miniwob-hud")) {
      const style = document.createElement("style");
      style.id = "webagent-miniwob-hud";
      style.textContent =
        "#reward-display, #click-canvas, #query { display: none !important; }";
      document.head.appendChild(style);
    }
    Math.seedrandom(req.seed);
    if (req.maxTimeMs !== null) {
      core.EPISODE_MAX_TIME = req.maxTimeMs;
    }
    core.startEpisodeReal();
    return { utterance: core.getUtterance(), maxTimeMs: core.EPISODE_MAX_TIME };
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
