// The Mini App's table: plain JavaScript in native modules, no build step. It asks the
// bot for a session with Telegram's signed launch data, draws the seat's view of the game
// from the state JSON (docs/webapp-api.md), plays through the API and follows the game
// live over Server-Sent Events. Opened from the group's «🃏 Table» link (a signed start
// parameter in the launch data, no ?game=), it shows a seated player their seat and
// anyone else the table as the group sees it ("watching": every seat across the top, no
// hand, no actions).

import { page } from "./page.js";
import { refresh, startSession } from "./bot.js";
import { showMessage } from "./dom.js";
import { connectLive, pause, resume, resync, setLive } from "./live.js";
import { tick } from "./table.js";
import { call, onBack, onMainButton, showFullscreen, supports, toggleFullscreen } from "./telegram.js";
import { t } from "./words.js";

// The first session; while the bot cannot be reached (restarting, the phone offline)
// it is asked again every few seconds. A refusal stays on screen: its message says why.
function boot() {
  startSession().then(
    function () {
      return refresh().then(connectLive);
    },
    function (error) {
      if (error && error.name === "TypeError") {
        setLive("off");
        setTimeout(boot, 3000);
      }
    }
  );
}

function start() {
  if (page.tg) {
    try {
      page.tg.ready();
      page.tg.expand();
      page.tg.MainButton.onClick(onMainButton);
    } catch (e) {
      /* outside Telegram */
    }
    // Dragging a card must not pull the app down (Bot API 7.7).
    if (supports("7.7")) call("disableVerticalSwipes");
    if (page.tg.BackButton && supports("6.1")) {
      page.tg.BackButton.onClick(onBack);
      page.tg.BackButton.show();
    }
    if (supports("8.0") && typeof page.tg.requestFullscreen === "function") {
      var full = document.getElementById("full");
      full.hidden = false;
      full.addEventListener("click", toggleFullscreen);
      page.tg.onEvent("fullscreenChanged", showFullscreen);
      showFullscreen();
    }
  }
  document.documentElement.lang = page.lang;
  if (!page.game && !page.startParam) {
    showMessage(t("no_launch"));
    return;
  }
  showMessage(t("connecting"));
  setLive("wait");
  boot();
  setInterval(tick, 500);
  document.addEventListener("visibilitychange", resync);
  window.addEventListener("online", resync);
  window.addEventListener("focus", resync);
  // Minimised: the stream stops (nothing to draw, nothing kept open); back: caught up.
  if (page.tg && page.tg.onEvent) {
    page.tg.onEvent("deactivated", pause);
    page.tg.onEvent("activated", resume);
  }
}

// Read-only, for the browser tests and for debugging: the state the page shows.
window.burkozelTable = {
  state: function () {
    return page.state && JSON.parse(JSON.stringify(page.state));
  },
  selection: function () {
    return page.selection.slice();
  },
  watching: function () {
    return page.watching;
  },
  live: function () {
    return page.live ? page.live.readyState : -1;
  },
};

start();
