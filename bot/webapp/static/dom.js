// Drawing helpers: elements with text only (never innerHTML: everything users wrote goes
// in as text), cards face up and face down, and the page's passing messages.

import { page } from "./page.js";

export var SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
export var RED = { H: true, D: true };
export var TEXT_STYLE = "\uFE0E"; // keep suit signs as text, never emoji
var toastTimer = null;

export function el(tag, cls, text) {
  var node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

function parseCard(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

function trumpSuit() {
  return page.state && page.state.trump ? page.state.trump.suit : null;
}

export function cardEl(code, extra) {
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

export function backEl(extra) {
  var node = el("div", "card back" + (extra ? " " + extra : ""));
  node.setAttribute("data-back", "");
  return node;
}

export function toast(text, bad) {
  var node = document.getElementById("toast");
  node.textContent = text;
  node.className = "toast" + (bad ? " bad" : "");
  node.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(function () {
    node.hidden = true;
  }, 3500);
}

export function showMessage(text) {
  var node = document.getElementById("message");
  node.textContent = text;
  node.hidden = false;
  page.root.setAttribute("data-state", "message");
}

export function hideMessage() {
  document.getElementById("message").hidden = true;
}
