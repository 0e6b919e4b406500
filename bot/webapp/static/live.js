// Following the game live over Server-Sent Events: reconnecting a little later each
// time, catching up after the app was minimised or the phone was offline.

import { page } from "./page.js";
import { refresh, startSession } from "./bot.js";
import { apply } from "./table.js";
import { t } from "./words.js";

export function setLive(mode) {
  page.root.setAttribute("data-live", mode);
  document.getElementById("conn-text").textContent = mode === "off" ? t("reconnecting") : "";
}

export function connectLive() {
  if (page.live) page.live.close();
  page.live = null;
  clearTimeout(page.liveTimer);
  if (!page.token || page.paused || (page.state && page.state.finished)) return;
  var url = page.base + "api/live?game=" + page.game + "&token=" + encodeURIComponent(page.token);
  var source = new EventSource(url);
  page.live = source;
  source.addEventListener("open", function () {
    if (page.live !== source) return;
    page.liveRetry = 0;
    setLive("on");
  });
  source.addEventListener("state", function (event) {
    if (page.live !== source) return;
    setLive("on");
    try {
      apply(JSON.parse(event.data));
    } catch (e) {
      /* a broken line: the next state or a refresh repairs it */
    }
  });
  source.addEventListener("error", function (event) {
    if (page.live !== source) return;
    if (event.data) {
      // The bot ended the stream on purpose (an expired token): a new one, then again.
      source.close();
      page.live = null;
      startSession().then(connectLive, retryLive);
      return;
    }
    if (page.state && page.state.finished) {
      source.close();
      page.live = null;
      return;
    }
    setLive("wait");
    // EventSource retries by itself while CONNECTING; once CLOSED (an error status,
    // say after a restart) we start over, a little later each time.
    if (source.readyState === EventSource.CLOSED) {
      page.live = null;
      retryLive();
    }
  });
}

function retryLive() {
  setLive("off");
  clearTimeout(page.liveTimer);
  var delay = Math.min(10000, 1000 * Math.pow(2, page.liveRetry++));
  page.liveTimer = setTimeout(function () {
    if (!page.paused) refresh().then(connectLive, connectLive);
  }, delay);
}

export function resync() {
  if (!page.token || page.paused || document.visibilityState === "hidden") return;
  refresh().then(function () {
    if (!page.live || page.live.readyState === EventSource.CLOSED) connectLive();
  });
}

export function pause() {
  page.paused = true;
  clearTimeout(page.liveTimer);
  if (page.live) {
    page.live.close();
    page.live = null;
  }
  setLive("paused");
}

export function resume() {
  page.paused = false;
  resync();
}
