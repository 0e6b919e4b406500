// Talking to the bot (docs/webapp-api.md): a session from Telegram's signed launch data,
// the state, and actions, each request with the session's token.

import { page } from "./page.js";
import { showMessage, toast } from "./dom.js";
import { connectLive, setLive } from "./live.js";
import { apply, render } from "./table.js";
import { haptic } from "./telegram.js";
import { t } from "./words.js";

function noteClock(response) {
  var date = response.headers.get("Date");
  if (!date) return;
  var offset = Date.parse(date) - Date.now();
  // The header has whole seconds: only a clock that is clearly off is corrected.
  page.clockOffset = Math.abs(offset) > 2000 ? offset : 0;
}

function request(method, path, body, auth) {
  var headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (auth && page.token) headers.Authorization = "Bearer " + page.token;
  return fetch(page.base + path, {
    method: method,
    headers: headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
    credentials: "same-origin",
  }).then(function (response) {
    noteClock(response);
    return response
      .json()
      .catch(function () {
        return {};
      })
      .then(function (data) {
        return { status: response.status, ok: response.ok, data: data || {} };
      });
  });
}

export function startSession() {
  var initData = (page.tg && page.tg.initData) || "";
  if (!initData) {
    showMessage(t("no_launch"));
    return Promise.reject(new Error("no initData"));
  }
  var body = { init_data: initData, game: page.game || null };
  return request("POST", "api/session", body).then(
    function (res) {
      if (!res.ok) {
        showMessage(res.data.message || t("reopen"));
        throw new Error("session refused: " + res.status);
      }
      page.token = res.data.token;
      if (res.data.game) page.game = res.data.game;
      page.watching = !!res.data.watching;
      page.root.setAttribute("data-watching", page.watching ? "1" : "0");
      if (res.data.lang) page.lang = res.data.lang;
      page.texts = res.data.texts || {};
      document.documentElement.lang = page.lang;
      clearTimeout(page.tokenTimer);
      var life = Number(res.data.expires_in) || 900;
      // A fresh token a minute before this one runs out; the stream moves to it.
      page.tokenTimer = setTimeout(function () {
        startSession().then(connectLive, function () {});
      }, Math.max(10, life - 60) * 1000);
      return res.data;
    }
  );
}

// A request with the token; an expired or unknown token (say the bot restarted with
// another key) gets one new session and one retry.
function authed(method, path, body) {
  return request(method, path, body, true).then(function (res) {
    if (res.status !== 401) return res;
    return startSession().then(function () {
      return request(method, path, body, true);
    });
  });
}

export function refresh() {
  if (!page.token) return Promise.resolve();
  return authed("GET", "api/state?game=" + page.game).then(
    function (res) {
      if (res.ok) apply(res.data);
      else if (res.status === 403 || res.status === 404) showMessage(res.data.message || t("reopen"));
    },
    function () {
      setLive("off");
    }
  );
}

export function send(action) {
  if (page.busy || !page.state) return;
  page.busy = true;
  page.root.setAttribute("data-busy", "1");
  haptic("impact", "medium");
  var body = {
    game: page.game,
    version: page.state.version,
    kind: action.kind,
    cards: action.cards || [],
  };
  authed("POST", "api/action", body)
    .then(
      function (res) {
        if (res.ok) {
          page.selection = [];
          haptic("notification", "success");
          apply(res.data);
        } else {
          refuse(res.data.message || String(res.status));
          if (res.status === 409) refresh();
        }
      },
      function () {
        refuse(t("network"));
      }
    )
    .then(function () {
      page.busy = false;
      page.root.removeAttribute("data-busy");
      render();
    });
}

function refuse(message) {
  haptic("notification", "error");
  toast(message, true);
}
