// The Mini App's table (issue 29): plain JavaScript, no build step. It asks the bot for a
// session with Telegram's signed launch data, draws the seat's view of the game from the
// state JSON (docs/webapp-api.md), plays through the API and follows the game live over
// Server-Sent Events. Everything users wrote (names, notes) goes in with textContent.
// Opened from the group's «🃏 Table» link (a signed start parameter in the launch data,
// no ?game=), it shows a seated player their seat and anyone else the table as the group
// sees it ("watching": every seat across the top, no hand, no actions).
(function () {
  "use strict";

  var tg = (window.Telegram && window.Telegram.WebApp) || null;
  var root = document.getElementById("app");
  var scriptSrc = (document.currentScript && document.currentScript.src) || location.href;
  var BASE = new URL("../", scriptSrc).href; // …/webapp/ (this file is …/webapp/static/app.js)
  var GAME = parseInt(new URLSearchParams(location.search).get("game") || "", 10);
  // The group's direct link: the bot reads the game from the signed launch data itself.
  var START = (tg && tg.initDataUnsafe && tg.initDataUnsafe.start_param) || "";

  var SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var RED = { H: true, D: true };
  var TEXT_STYLE = "\uFE0E"; // keep suit signs as text, never emoji

  // The page's own strings; the session's "texts" (the bot's webapp.* strings in the
  // player's language) take precedence key by key.
  var BUILTIN = {
    en: {
      burkozel: "Burkozel",
      bura: "Bura",
      tally: "Deal {deal}",
      teams: "Pairs: {a} — {b}",
      your_turn: "Your turn",
      waiting: "Turn: {name}",
      select_cards: "Choose cards",
      cards: "Cards: {n}",
      pile: "In tricks: {n}",
      tricks: "Tricks: {n}",
      points: "Points: {n}",
      score: "Score: {n}",
      stock: "Stock: {n}",
      trump: "Trump",
      no_stock: "Stock: 0",
      last_trick: "{name} took the trick",
      you: "you",
      partner: "partner",
      out: "out",
      computer: "computer",
      away: "away",
      lead: "lead",
      beat: "beat",
      discard: "discard",
      stop: "stop",
      empty_table: "The table is empty",
      no_cards: "No cards in hand",
      finished: "The game is over",
      connecting: "Connecting…",
      reconnecting: "Connection lost, reconnecting…",
      reopen: "Open the table again with the button in your private chat with the bot.",
      no_launch: "Open the table with the button in your private chat with the bot.",
      network: "No connection to the bot, retrying…",
      watching: "You are watching",
    },
    ru: {
      burkozel: "Буркозёл",
      bura: "Бура",
      tally: "Партия {deal}",
      teams: "Пары: {a} — {b}",
      your_turn: "Ваш ход",
      waiting: "Ход: {name}",
      select_cards: "Выберите карты",
      cards: "Карт: {n}",
      pile: "Во взятках: {n}",
      tricks: "Взяток: {n}",
      points: "Очки: {n}",
      score: "Счёт: {n}",
      stock: "В колоде: {n}",
      trump: "Козырь",
      no_stock: "В колоде: 0",
      last_trick: "Взятку взял(а) {name}",
      you: "вы",
      partner: "партнёр",
      out: "выбыл",
      computer: "компьютер",
      away: "отошёл",
      lead: "ход",
      beat: "бьёт",
      discard: "сброс",
      stop: "стоп",
      empty_table: "На столе пусто",
      no_cards: "Карт на руке нет",
      finished: "Игра окончена",
      connecting: "Соединение…",
      reconnecting: "Нет связи, переподключаюсь…",
      reopen: "Откройте стол заново кнопкой в личном чате с ботом.",
      no_launch: "Откройте стол кнопкой в личном чате с ботом.",
      network: "Нет связи с ботом, пробую снова…",
      watching: "Вы смотрите",
    },
  };

  var lang = guessLang();
  var texts = {};
  var token = null;
  var tokenTimer = null;
  var state = null;
  var selection = [];
  var busy = false;
  var live = null;
  var liveRetry = 0;
  var liveTimer = null;
  var clockOffset = 0; // server time minus ours, ms
  var mainAction = null;
  var watching = false; // an onlooker: the table as the group sees it
  var paused = false; // minimised (Telegram's "deactivated"): no live stream until back
  var myTurn = false;

  function guessLang() {
    var user = tg && tg.initDataUnsafe && tg.initDataUnsafe.user;
    var code = (user && user.language_code) || navigator.language || "ru";
    return /^en/i.test(code) ? "en" : "ru";
  }

  function t(key, vars) {
    var s = texts[key];
    if (typeof s !== "string") s = (BUILTIN[lang] || BUILTIN.ru)[key];
    if (typeof s !== "string") s = BUILTIN.en[key];
    if (typeof s !== "string") s = key;
    if (vars) {
      s = s.replace(/\{(\w+)\}/g, function (all, name) {
        return name in vars ? String(vars[name]) : all;
      });
    }
    return s;
  }

  // --- DOM helpers (text only: never innerHTML) ---------------------------------------

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function parseCard(code) {
    return { rank: code.slice(0, -1), suit: code.slice(-1) };
  }

  function trumpSuit() {
    return state && state.trump ? state.trump.suit : null;
  }

  function cardEl(code, extra) {
    var c = parseCard(code);
    var node = el("div", "card" + (RED[c.suit] ? " red" : "") + (extra ? " " + extra : ""));
    node.setAttribute("data-card", code);
    var sign = (SUITS[c.suit] || c.suit) + TEXT_STYLE;
    node.setAttribute("aria-label", c.rank + (SUITS[c.suit] || c.suit));
    var idx = el("span", "idx");
    idx.appendChild(el("span", "r", c.rank));
    idx.appendChild(el("span", "s", sign));
    node.appendChild(idx);
    node.appendChild(el("span", "big", sign));
    if (c.suit === trumpSuit()) {
      node.classList.add("trump");
      node.appendChild(el("span", "star"));
    }
    return node;
  }

  function backEl(extra) {
    var node = el("div", "card back" + (extra ? " " + extra : ""));
    node.setAttribute("data-back", "");
    return node;
  }

  // --- Telegram ---------------------------------------------------------------------

  function haptic(kind, style) {
    var h = tg && tg.HapticFeedback;
    if (!h) return;
    try {
      if (kind === "impact") h.impactOccurred(style || "light");
      else if (kind === "selection") h.selectionChanged();
      else h.notificationOccurred(style || "error");
    } catch (e) {
      /* an old client without haptics */
    }
  }

  function onMainButton() {
    if (mainAction) send(mainAction);
  }

  function setMainButton(action) {
    mainAction = action;
    var mb = tg && tg.MainButton;
    if (!mb) return;
    if (action) {
      mb.setText(action.label);
      mb.enable();
      mb.show();
    } else {
      mb.hide();
    }
  }

  function call(method) {
    var args = Array.prototype.slice.call(arguments, 1);
    if (!tg || typeof tg[method] !== "function") return false;
    try {
      tg[method].apply(tg, args);
      return true;
    } catch (e) {
      return false; /* an older client without it */
    }
  }

  function supports(version) {
    return !!(tg && typeof tg.isVersionAtLeast === "function" && tg.isVersionAtLeast(version));
  }

  // Whose turn it is now mine: a haptic, and Telegram asks before closing the app.
  function noteTurn() {
    var mine = !!state && !watching && !state.finished && state.turn === state.me;
    if (mine === myTurn) return;
    myTurn = mine;
    if (mine) haptic("notification", "warning");
    call(mine ? "enableClosingConfirmation" : "disableClosingConfirmation");
  }

  // The full-screen button's icon: four corners out (enter) or in (leave), drawn as SVG
  // (no font on every phone has a sign for it).
  var CORNERS_OUT = "M2 6V2h4M10 2h4v4M14 10v4h-4M6 14H2v-4";
  var CORNERS_IN = "M6 2v4H2M14 6h-4V2M10 14v-4h4M2 10h4v4";
  function cornersIcon(path) {
    var NS = "http://www.w3.org/2000/svg";
    var svg = document.createElementNS(NS, "svg");
    svg.setAttribute("viewBox", "0 0 16 16");
    svg.setAttribute("width", "16");
    svg.setAttribute("height", "16");
    svg.setAttribute("aria-hidden", "true");
    var line = document.createElementNS(NS, "path");
    line.setAttribute("d", path);
    line.setAttribute("fill", "none");
    line.setAttribute("stroke", "currentColor");
    line.setAttribute("stroke-width", "2");
    svg.appendChild(line);
    return svg;
  }

  function showFullscreen() {
    var button = clear(document.getElementById("full"));
    var full = !!(tg && tg.isFullscreen);
    root.setAttribute("data-full", full ? "1" : "0");
    button.appendChild(cornersIcon(full ? CORNERS_IN : CORNERS_OUT));
    button.setAttribute("aria-pressed", full ? "true" : "false");
  }

  function toggleFullscreen() {
    if (tg && tg.isFullscreen) call("exitFullscreen");
    else call("requestFullscreen");
  }

  // Telegram's BackButton: out of full screen first, then out of the app.
  function onBack() {
    if (tg && tg.isFullscreen) call("exitFullscreen");
    else call("close");
  }

  function pause() {
    paused = true;
    clearTimeout(liveTimer);
    if (live) {
      live.close();
      live = null;
    }
    setLive("paused");
  }

  function resume() {
    paused = false;
    resync();
  }

  // --- talking to the bot -----------------------------------------------------------

  function noteClock(response) {
    var date = response.headers.get("Date");
    if (!date) return;
    var offset = Date.parse(date) - Date.now();
    // The header has whole seconds: only a clock that is clearly off is corrected.
    clockOffset = Math.abs(offset) > 2000 ? offset : 0;
  }

  function request(method, path, body, auth) {
    var headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (auth && token) headers.Authorization = "Bearer " + token;
    return fetch(BASE + path, {
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

  function startSession() {
    var initData = (tg && tg.initData) || "";
    if (!initData) {
      showMessage(t("no_launch"));
      return Promise.reject(new Error("no initData"));
    }
    var body = { init_data: initData, game: GAME || null };
    return request("POST", "api/session", body).then(
      function (res) {
        if (!res.ok) {
          showMessage(res.data.message || t("reopen"));
          throw new Error("session refused: " + res.status);
        }
        token = res.data.token;
        if (res.data.game) GAME = res.data.game;
        watching = !!res.data.watching;
        root.setAttribute("data-watching", watching ? "1" : "0");
        if (res.data.lang) lang = res.data.lang;
        texts = res.data.texts || {};
        document.documentElement.lang = lang;
        clearTimeout(tokenTimer);
        var life = Number(res.data.expires_in) || 900;
        // A fresh token a minute before this one runs out; the stream moves to it.
        tokenTimer = setTimeout(function () {
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

  function refresh() {
    if (!token) return Promise.resolve();
    return authed("GET", "api/state?game=" + GAME).then(
      function (res) {
        if (res.ok) apply(res.data);
        else if (res.status === 403 || res.status === 404) showMessage(res.data.message || t("reopen"));
      },
      function () {
        setLive("off");
      }
    );
  }

  function send(action) {
    if (busy || !state) return;
    busy = true;
    root.setAttribute("data-busy", "1");
    haptic("impact", "medium");
    var body = {
      game: GAME,
      version: state.version,
      kind: action.kind,
      cards: action.cards || [],
    };
    authed("POST", "api/action", body)
      .then(
        function (res) {
          if (res.ok) {
            selection = [];
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
        busy = false;
        root.removeAttribute("data-busy");
        render();
      });
  }

  function refuse(message) {
    haptic("notification", "error");
    toast(message, true);
  }

  // --- live updates -----------------------------------------------------------------

  function setLive(mode) {
    root.setAttribute("data-live", mode);
    document.getElementById("conn-text").textContent = mode === "off" ? t("reconnecting") : "";
  }

  function connectLive() {
    if (live) live.close();
    live = null;
    clearTimeout(liveTimer);
    if (!token || paused || (state && state.finished)) return;
    var url = BASE + "api/live?game=" + GAME + "&token=" + encodeURIComponent(token);
    var source = new EventSource(url);
    live = source;
    source.addEventListener("open", function () {
      if (live !== source) return;
      liveRetry = 0;
      setLive("on");
    });
    source.addEventListener("state", function (event) {
      if (live !== source) return;
      setLive("on");
      try {
        apply(JSON.parse(event.data));
      } catch (e) {
        /* a broken line: the next state or a refresh repairs it */
      }
    });
    source.addEventListener("error", function (event) {
      if (live !== source) return;
      if (event.data) {
        // The bot ended the stream on purpose (an expired token): a new one, then again.
        source.close();
        live = null;
        startSession().then(connectLive, retryLive);
        return;
      }
      if (state && state.finished) {
        source.close();
        live = null;
        return;
      }
      setLive("wait");
      // EventSource retries by itself while CONNECTING; once CLOSED (an error status,
      // say after a restart) we start over, a little later each time.
      if (source.readyState === EventSource.CLOSED) {
        live = null;
        retryLive();
      }
    });
  }

  function retryLive() {
    setLive("off");
    clearTimeout(liveTimer);
    var delay = Math.min(10000, 1000 * Math.pow(2, liveRetry++));
    liveTimer = setTimeout(function () {
      if (!paused) refresh().then(connectLive, connectLive);
    }, delay);
  }

  function resync() {
    if (!token || paused || document.visibilityState === "hidden") return;
    refresh().then(function () {
      if (!live || live.readyState === EventSource.CLOSED) connectLive();
    });
  }

  // --- state --------------------------------------------------------------------------

  function apply(next) {
    if (!next || next.game !== GAME) return;
    if (state && next.version < state.version) return; // an older state arriving late
    state = next;
    var hand = state.hand || [];
    selection = selection.filter(function (code) {
      return hand.indexOf(code) >= 0;
    });
    render();
    noteTurn();
    if (state.finished && live) {
      live.close();
      live = null;
    }
  }

  function seatOf(n) {
    var seats = (state && state.seats) || [];
    for (var i = 0; i < seats.length; i++) if (seats[i].seat === n) return seats[i];
    return null;
  }

  function nameOf(n) {
    var seat = seatOf(n);
    return seat ? shownName(seat) : "?";
  }

  // A computer's name has its 🤖 once (the bot's names may carry it already).
  function shownName(seat) {
    var name = String(seat.name);
    return seat.computer ? name.replace(/^(\uD83E\uDD16\s*)+/, "\uD83E\uDD16 ") : name;
  }

  function sameSet(a, b) {
    if (!a || a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (b.indexOf(a[i]) < 0) return false;
    return true;
  }

  function secondsLeft() {
    if (!state || state.deadline === null || state.deadline === undefined) return null;
    var now = (Date.now() + clockOffset) / 1000;
    return Math.max(0, Math.ceil(state.deadline - now));
  }

  function clockText(s) {
    var m = Math.floor(s / 60);
    var r = s % 60;
    return m + ":" + (r < 10 ? "0" : "") + r;
  }

  // --- drawing ------------------------------------------------------------------------

  function render() {
    if (!state) return;
    root.setAttribute("data-state", state.finished ? "finished" : "playing");
    root.setAttribute("data-kind", state.kind);
    root.setAttribute("data-seats", String((state.seats || []).length));
    root.setAttribute("data-watching", watching ? "1" : "0");
    hideMessage();
    renderBar();
    renderOpponents();
    renderBoard();
    renderNotes();
    renderMe();
    renderHand();
    renderActions();
    tick();
    root.setAttribute("data-version", String(state.version));
  }

  function renderBar() {
    document.getElementById("title").textContent = t(state.kind);
    var tally = state.tally || {};
    var parts = [t("tally", { deal: state.deal || tally.deal || 1 })];
    if (tally.teams && tally.teams.length === 2) {
      parts.push(t("teams", { a: tally.teams[0], b: tally.teams[1] }));
    }
    document.getElementById("tally").textContent = parts.join(" · ");
  }

  function seatStats(seat, box) {
    var stats = el("div", "stats");
    function stat(key, n) {
      var span = el("span", "stat-" + key);
      var text = t(key, { n: "\u0000" }).split("\u0000");
      span.appendChild(document.createTextNode(text[0]));
      span.appendChild(el("b", null, n));
      if (text[1]) span.appendChild(document.createTextNode(text[1]));
      stats.appendChild(span);
    }
    // Tricks taken where the game counts them (Bura), else the cards taken (Burkozel).
    if (seat.tricks !== undefined && seat.tricks !== null) stat("tricks", seat.tricks);
    else if (seat.pile !== undefined && seat.pile !== null) stat("pile", seat.pile);
    if (seat.points !== undefined && seat.points !== null) stat("points", seat.points);
    if (seat.score !== undefined && seat.score !== null) stat("score", seat.score);
    box.appendChild(stats);
  }

  function seatHead(seat, box, withClock) {
    var who = el("div", "who");
    who.appendChild(el("span", "name", shownName(seat)));
    if (withClock) who.appendChild(el("span", "clock"));
    box.appendChild(who);
    var tags = el("div", "tags");
    if (seat.me) tags.appendChild(el("span", "tag", t("you")));
    if (seat.computer && shownName(seat).indexOf("\uD83E\uDD16") !== 0) {
      tags.appendChild(el("span", "tag", t("computer")));
    }
    if (seat.partner) tags.appendChild(el("span", "tag partner-tag", t("partner")));
    if (seat.out) tags.appendChild(el("span", "tag out-tag", t("out")));
    else if (seat.away) tags.appendChild(el("span", "tag", t("away")));
    if (tags.firstChild) box.appendChild(tags);
  }

  function seatClasses(seat, base) {
    var cls = base;
    if (state.turn === seat.seat && !state.finished) cls += " on-turn";
    if (seat.partner) cls += " partner";
    if (seat.out) cls += " out";
    return cls;
  }

  function renderOpponents() {
    var box = clear(document.getElementById("opponents"));
    var seats = state.seats || [];
    var n = seats.length;
    var others = [];
    if (watching) others = seats.slice(); // every seat, in the table's order
    else for (var i = 1; i < n; i++) others.push(seats[(state.me + i) % n]);
    box.style.setProperty("--n", String(Math.max(1, others.length)));
    others.forEach(function (seat) {
      if (!seat) return;
      var node = el("div", seatClasses(seat, "seat"));
      node.setAttribute("data-seat", String(seat.seat));
      seatHead(seat, node, false);
      var held = el("div", "held");
      var fan = el("div", "fan");
      for (var k = 0; k < Math.min(seat.cards || 0, 6); k++) fan.appendChild(backEl("mini"));
      held.appendChild(fan);
      held.appendChild(el("span", "count", seat.cards ? t("cards", { n: seat.cards }) : ""));
      if (state.turn === seat.seat && !state.finished) held.appendChild(el("span", "clock"));
      node.appendChild(held);
      seatStats(seat, node);
      box.appendChild(node);
    });
  }

  function playEl(play, taken) {
    var node = el("div", "play" + (taken ? " taken" : ""));
    node.setAttribute("data-seat", String(play.seat));
    node.setAttribute("data-role", play.role || "");
    var cards = el("div", "cards");
    (play.cards || []).forEach(function (code) {
      cards.appendChild(cardEl(code, play.mine_closed ? "closed-mine" : ""));
    });
    for (var k = 0; k < (play.closed || 0); k++) cards.appendChild(backEl());
    node.appendChild(cards);
    node.appendChild(el("span", "label", nameOf(play.seat)));
    if (play.role && play.role !== "lead") node.appendChild(el("span", "role", t(play.role)));
    return node;
  }

  function renderBoard() {
    var stock = clear(document.getElementById("stock"));
    var trump = state.trump || {};
    if (state.stock > 0 || (trump.card && trump.in_stock !== false)) {
      var pile = el("div", "pile");
      if (trump.card && trump.in_stock !== false) pile.appendChild(cardEl(trump.card, "turned"));
      if (state.stock > (trump.card && trump.in_stock !== false ? 1 : 0)) {
        pile.appendChild(backEl("deck"));
      }
      stock.appendChild(pile);
      stock.appendChild(el("span", "left", t("stock", { n: state.stock })));
    } else {
      stock.appendChild(el("span", "left", t("no_stock")));
    }
    if (trump.suit) {
      var chip = el("span", "trump-chip" + (RED[trump.suit] ? " red" : ""));
      chip.setAttribute("data-trump", trump.suit);
      chip.appendChild(document.createTextNode(SUITS[trump.suit] + TEXT_STYLE + " "));
      chip.appendChild(el("span", null, t("trump")));
      stock.appendChild(chip);
    }

    var plays = clear(document.getElementById("plays"));
    var table = state.table || [];
    if (table.length) {
      table.forEach(function (play) {
        plays.appendChild(playEl(play, false));
      });
    } else if (state.last_trick && state.last_trick.plays) {
      var last = state.last_trick;
      last.plays.forEach(function (play) {
        plays.appendChild(playEl(play, true));
      });
      var caption = t("last_trick", { name: nameOf(last.taker) });
      if (last.points !== null && last.points !== undefined) {
        caption += " · " + t("points", { n: last.points });
      }
      var cap = el("div", "caption", caption);
      cap.setAttribute("data-taker", String(last.taker));
      plays.appendChild(cap);
    } else {
      plays.appendChild(el("div", "empty", t("empty_table")));
    }
  }

  function renderNotes() {
    var box = clear(document.getElementById("notes"));
    var notes = state.notes || [];
    box.hidden = notes.length === 0;
    notes.forEach(function (line) {
      box.appendChild(el("p", null, line));
    });
  }

  function renderMe() {
    var box = clear(document.getElementById("me"));
    var note = document.getElementById("watching");
    note.hidden = !watching;
    note.textContent = watching ? t("watching") : "";
    var me = watching ? null : seatOf(state.me);
    if (!me) return;
    box.className = seatClasses(me, "seat mine");
    box.setAttribute("data-seat", String(me.seat));
    var head = el("div", "head");
    seatHead(me, head, false);
    box.appendChild(head);
    seatStats(me, box);
  }

  function cardActions() {
    return (state.actions || []).filter(function (a) {
      return a.cards && a.cards.length;
    });
  }

  function renderHand() {
    var box = clear(document.getElementById("hand"));
    var hand = state.hand || [];
    box.style.setProperty("--n", String(Math.max(1, hand.length)));
    var usable = {};
    var withCards = cardActions();
    withCards.forEach(function (a) {
      a.cards.forEach(function (code) {
        usable[code] = true;
      });
    });
    if (!hand.length) box.appendChild(el("div", "none", t("no_cards")));
    hand.forEach(function (code) {
      var extra = selection.indexOf(code) >= 0 ? "selected" : "";
      if (withCards.length && !usable[code]) extra += " idle";
      var node = cardEl(code, extra);
      node.setAttribute("role", "button");
      node.setAttribute("tabindex", "0");
      node.setAttribute("aria-pressed", selection.indexOf(code) >= 0 ? "true" : "false");
      node.addEventListener("click", function () {
        toggle(code);
      });
      node.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          toggle(code);
        }
      });
      box.appendChild(node);
    });
  }

  function toggle(code) {
    var at = selection.indexOf(code);
    if (at >= 0) selection.splice(at, 1);
    else selection.push(code);
    haptic("selection");
    renderHand();
    renderActions();
    tick();
  }

  function renderActions() {
    var box = clear(document.getElementById("actions"));
    var actions = (state && state.actions) || [];
    var order = [];
    var byKind = {};
    actions.forEach(function (a) {
      var key = a.cards && a.cards.length ? a.kind : a.kind + "#" + order.length;
      if (!byKind[key]) {
        byKind[key] = [];
        order.push(key);
      }
      byKind[key].push(a);
    });
    var main = null;
    order.forEach(function (key) {
      var list = byKind[key];
      var first = list[0];
      var button = el("button", null);
      button.type = "button";
      button.setAttribute("data-action", first.kind);
      var action = null;
      if (first.cards && first.cards.length) {
        for (var i = 0; i < list.length; i++) {
          if (sameSet(list[i].cards, selection)) action = list[i];
        }
        button.textContent = action ? action.label : first.short;
        // Telegram's MainButton takes the likeliest of the matching plays (a beat
        // rather than a discard of the same cards): the server ranks them.
        if (action && (!main || action.rank < main.rank)) main = action;
      } else {
        action = first;
        button.textContent = first.label;
        button.className = "second";
      }
      button.disabled = !action || busy || !!state.finished;
      if (action) {
        button.setAttribute("data-cards", (action.cards || []).join(" "));
        button.addEventListener("click", function () {
          send(action);
        });
      }
      box.appendChild(button);
    });
    setMainButton(busy || !state || state.finished ? null : main);
  }

  function tick() {
    if (!state) return;
    var left = state.finished || state.turn === null ? null : secondsLeft();
    var turn = clear(document.getElementById("turn"));
    var mine = !watching && state.turn === state.me && !state.finished;
    turn.className = "turn" + (mine ? " mine" : "");
    var what;
    if (state.finished) what = t("finished");
    else if (state.turn === null || state.turn === undefined) what = "";
    else if (mine) what = t("your_turn");
    else what = t("waiting", { name: nameOf(state.turn) });
    turn.appendChild(el("span", "what", what));
    if (left !== null) {
      turn.appendChild(el("span", "clock" + (left <= 10 ? " low" : ""), clockText(left)));
    }
    if (mine && cardActions().length && !mainAction) turn.appendChild(el("span", "hint", t("select_cards")));
    var clocks = document.querySelectorAll(".opponents .clock");
    for (var i = 0; i < clocks.length; i++) {
      clocks[i].textContent = left === null ? "" : clockText(left);
      clocks[i].className = "clock" + (left !== null && left <= 10 ? " low" : "");
    }
  }

  // --- messages -----------------------------------------------------------------------

  var toastTimer = null;
  function toast(text, bad) {
    var node = document.getElementById("toast");
    node.textContent = text;
    node.className = "toast" + (bad ? " bad" : "");
    node.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () {
      node.hidden = true;
    }, 3500);
  }

  function showMessage(text) {
    var node = document.getElementById("message");
    node.textContent = text;
    node.hidden = false;
    root.setAttribute("data-state", "message");
  }

  function hideMessage() {
    document.getElementById("message").hidden = true;
  }

  // --- start --------------------------------------------------------------------------

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
    if (tg) {
      try {
        tg.ready();
        tg.expand();
        tg.MainButton.onClick(onMainButton);
      } catch (e) {
        /* outside Telegram */
      }
      // Dragging a card must not pull the app down (Bot API 7.7).
      if (supports("7.7")) call("disableVerticalSwipes");
      if (tg.BackButton && supports("6.1")) {
        tg.BackButton.onClick(onBack);
        tg.BackButton.show();
      }
      if (supports("8.0") && typeof tg.requestFullscreen === "function") {
        var full = document.getElementById("full");
        full.hidden = false;
        full.addEventListener("click", toggleFullscreen);
        tg.onEvent("fullscreenChanged", showFullscreen);
        showFullscreen();
      }
    }
    document.documentElement.lang = lang;
    if (!GAME && !START) {
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
    if (tg && tg.onEvent) {
      tg.onEvent("deactivated", pause);
      tg.onEvent("activated", resume);
    }
  }

  // Read-only, for the browser tests and for debugging: the state the page shows.
  window.burkozelTable = {
    state: function () {
      return state && JSON.parse(JSON.stringify(state));
    },
    selection: function () {
      return selection.slice();
    },
    watching: function () {
      return watching;
    },
    live: function () {
      return live ? live.readyState : -1;
    },
  };

  start();
})();
