// The table as the state JSON says it: the bar, the other seats, the stock and the
// cards on the table, the player's own seat, hand and actions, and the turn's clock.

import { page } from "./page.js";
import { send } from "./bot.js";
import { RED, SUITS, TEXT_STYLE, backEl, cardEl, clear, el, hideMessage } from "./dom.js";
import { haptic, noteTurn, setMainButton } from "./telegram.js";
import { t } from "./words.js";

export function apply(next) {
  if (!next || next.game !== page.game) return;
  if (page.state && next.version < page.state.version) return; // an older state arriving late
  page.state = next;
  var hand = page.state.hand || [];
  page.selection = page.selection.filter(function (code) {
    return hand.indexOf(code) >= 0;
  });
  render();
  noteTurn();
  if (page.state.finished && page.live) {
    page.live.close();
    page.live = null;
  }
}

function seatOf(n) {
  var seats = (page.state && page.state.seats) || [];
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
  if (!page.state || page.state.deadline === null || page.state.deadline === undefined) return null;
  var now = (Date.now() + page.clockOffset) / 1000;
  return Math.max(0, Math.ceil(page.state.deadline - now));
}

function clockText(s) {
  var m = Math.floor(s / 60);
  var r = s % 60;
  return m + ":" + (r < 10 ? "0" : "") + r;
}

export function render() {
  if (!page.state) return;
  page.root.setAttribute("data-state", page.state.finished ? "finished" : "playing");
  page.root.setAttribute("data-kind", page.state.kind);
  page.root.setAttribute("data-seats", String((page.state.seats || []).length));
  page.root.setAttribute("data-watching", page.watching ? "1" : "0");
  hideMessage();
  renderBar();
  renderOpponents();
  renderBoard();
  renderNotes();
  renderMe();
  renderHand();
  renderActions();
  tick();
  page.root.setAttribute("data-version", String(page.state.version));
}

function renderBar() {
  document.getElementById("title").textContent = t(page.state.kind);
  var tally = page.state.tally || {};
  var parts = [t("tally", { deal: page.state.deal || tally.deal || 1 })];
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
  if (page.state.turn === seat.seat && !page.state.finished) cls += " on-turn";
  if (seat.partner) cls += " partner";
  if (seat.out) cls += " out";
  return cls;
}

function renderOpponents() {
  var box = clear(document.getElementById("opponents"));
  var seats = page.state.seats || [];
  var n = seats.length;
  var others = [];
  if (page.watching) others = seats.slice(); // every seat, in the table's order
  else for (var i = 1; i < n; i++) others.push(seats[(page.state.me + i) % n]);
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
    if (page.state.turn === seat.seat && !page.state.finished) held.appendChild(el("span", "clock"));
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
  var trump = page.state.trump || {};
  if (page.state.stock > 0 || (trump.card && trump.in_stock !== false)) {
    var pile = el("div", "pile");
    if (trump.card && trump.in_stock !== false) pile.appendChild(cardEl(trump.card, "turned"));
    if (page.state.stock > (trump.card && trump.in_stock !== false ? 1 : 0)) {
      pile.appendChild(backEl("deck"));
    }
    stock.appendChild(pile);
    stock.appendChild(el("span", "left", t("stock", { n: page.state.stock })));
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
  var table = page.state.table || [];
  if (table.length) {
    table.forEach(function (play) {
      plays.appendChild(playEl(play, false));
    });
  } else if (page.state.last_trick && page.state.last_trick.plays) {
    var last = page.state.last_trick;
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
  var notes = page.state.notes || [];
  box.hidden = notes.length === 0;
  notes.forEach(function (line) {
    box.appendChild(el("p", null, line));
  });
}

function renderMe() {
  var box = clear(document.getElementById("me"));
  var note = document.getElementById("watching");
  note.hidden = !page.watching;
  note.textContent = page.watching ? t("watching") : "";
  var me = page.watching ? null : seatOf(page.state.me);
  if (!me) return;
  box.className = seatClasses(me, "seat mine");
  box.setAttribute("data-seat", String(me.seat));
  var head = el("div", "head");
  seatHead(me, head, false);
  box.appendChild(head);
  seatStats(me, box);
}

function cardActions() {
  return (page.state.actions || []).filter(function (a) {
    return a.cards && a.cards.length;
  });
}

function renderHand() {
  var box = clear(document.getElementById("hand"));
  var hand = page.state.hand || [];
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
    var extra = page.selection.indexOf(code) >= 0 ? "selected" : "";
    if (withCards.length && !usable[code]) extra += " idle";
    var node = cardEl(code, extra);
    node.setAttribute("role", "button");
    node.setAttribute("tabindex", "0");
    node.setAttribute("aria-pressed", page.selection.indexOf(code) >= 0 ? "true" : "false");
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
  var at = page.selection.indexOf(code);
  if (at >= 0) page.selection.splice(at, 1);
  else page.selection.push(code);
  haptic("selection");
  renderHand();
  renderActions();
  tick();
}

function renderActions() {
  var box = clear(document.getElementById("actions"));
  var actions = (page.state && page.state.actions) || [];
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
        if (sameSet(list[i].cards, page.selection)) action = list[i];
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
    button.disabled = !action || page.busy || !!page.state.finished;
    if (action) {
      button.setAttribute("data-cards", (action.cards || []).join(" "));
      button.addEventListener("click", function () {
        send(action);
      });
    }
    box.appendChild(button);
  });
  setMainButton(page.busy || !page.state || page.state.finished ? null : main);
}

export function tick() {
  if (!page.state) return;
  var left = page.state.finished || page.state.turn === null ? null : secondsLeft();
  var turn = clear(document.getElementById("turn"));
  var mine = !page.watching && page.state.turn === page.state.me && !page.state.finished;
  turn.className = "turn" + (mine ? " mine" : "");
  var what;
  if (page.state.finished) what = t("finished");
  else if (page.state.turn === null || page.state.turn === undefined) what = "";
  else if (mine) what = t("your_turn");
  else what = t("waiting", { name: nameOf(page.state.turn) });
  turn.appendChild(el("span", "what", what));
  if (left !== null) {
    turn.appendChild(el("span", "clock" + (left <= 10 ? " low" : ""), clockText(left)));
  }
  if (mine && cardActions().length && !page.mainAction) turn.appendChild(el("span", "hint", t("select_cards")));
  var clocks = document.querySelectorAll(".opponents .clock");
  for (var i = 0; i < clocks.length; i++) {
    clocks[i].textContent = left === null ? "" : clockText(left);
    clocks[i].className = "clock" + (left !== null && left <= 10 ? " low" : "");
  }
}
