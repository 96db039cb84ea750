// The runs list follows new runs and status changes: the first page is fetched again every
// few seconds (same filters, same credentials) and its rows replace the shown ones. Older
// pages (a cursor in the URL) and hidden tabs are left alone.
(() => {
  "use strict";
  const live = document.getElementById("runs-live");
  if (!live || !live.dataset.live) return;
  const every = Number(live.dataset.live) || 3000;
  let busy = false;

  async function refresh() {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const response = await fetch(window.location.href, { credentials: "same-origin" });
      if (!response.ok) return;
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
      const next = fresh.getElementById("runs-live");
      if (next && next.innerHTML !== live.innerHTML) {
        live.replaceChildren(...[...next.childNodes].map((n) => document.importNode(n, true)));
      }
    } catch (err) {
      // offline for a moment: the next round tries again
    } finally {
      busy = false;
    }
  }

  setInterval(refresh, every);
  document.addEventListener("visibilitychange", refresh);
})();
