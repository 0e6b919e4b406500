// The page's one shared state: how it was launched, the session, and what it shows. The
// other modules read and change it here (each field as the comment says).

var tg = (window.Telegram && window.Telegram.WebApp) || null;

function guessLang() {
  var user = tg && tg.initDataUnsafe && tg.initDataUnsafe.user;
  var code = (user && user.language_code) || navigator.language || "ru";
  return /^en/i.test(code) ? "en" : "ru";
}

export var page = {
  tg: tg, // Telegram's WebApp object (null outside Telegram)
  root: document.getElementById("app"),
  base: new URL("../", import.meta.url).href, // …/webapp/ (this file is …/webapp/static/page.js)
  game: parseInt(new URLSearchParams(location.search).get("game") || "", 10),
  // The group's direct link: the bot reads the game from the signed launch data itself.
  startParam: (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param) || "",
  lang: guessLang(), // the session's language once there is one
  texts: {}, // the session's texts (the bot's webapp.* strings in its language)
  token: null,
  tokenTimer: null,
  state: null, // the last state JSON drawn
  selection: [], // the card codes the player selected
  busy: false, // an action is on its way
  live: null, // the EventSource following the game
  liveRetry: 0,
  liveTimer: null,
  clockOffset: 0, // server time minus ours, ms
  mainAction: null, // the action Telegram's main button makes
  watching: false, // an onlooker: the table as the group sees it
  paused: false, // minimised (Telegram's "deactivated"): no live stream until back
  myTurn: false,
};
