// What the page asks of Telegram's WebApp object: haptics, the main and back buttons,
// closing confirmation and full screen; each call survives an older client without it.

import { page } from "./page.js";
import { send } from "./bot.js";
import { clear } from "./dom.js";

// The full-screen button's icon: four corners out (enter) or in (leave), drawn as SVG
// (no font on every phone has a sign for it).
var CORNERS_OUT = "M2 6V2h4M10 2h4v4M14 10v4h-4M6 14H2v-4";
var CORNERS_IN = "M6 2v4H2M14 6h-4V2M10 14v-4h4M2 10h4v4";

export function haptic(kind, style) {
  var h = page.tg && page.tg.HapticFeedback;
  if (!h) return;
  try {
    if (kind === "impact") h.impactOccurred(style || "light");
    else if (kind === "selection") h.selectionChanged();
    else h.notificationOccurred(style || "error");
  } catch (e) {
    /* an old client without haptics */
  }
}

export function onMainButton() {
  if (page.mainAction) send(page.mainAction);
}

export function setMainButton(action) {
  page.mainAction = action;
  var mb = page.tg && page.tg.MainButton;
  if (!mb) return;
  if (action) {
    mb.setText(action.label);
    mb.enable();
    mb.show();
  } else {
    mb.hide();
  }
}

export function call(method) {
  var args = Array.prototype.slice.call(arguments, 1);
  if (!page.tg || typeof page.tg[method] !== "function") return false;
  try {
    page.tg[method].apply(page.tg, args);
    return true;
  } catch (e) {
    return false; /* an older client without it */
  }
}

export function supports(version) {
  return !!(page.tg && typeof page.tg.isVersionAtLeast === "function" && page.tg.isVersionAtLeast(version));
}

// Whose turn it is now mine: a haptic, and Telegram asks before closing the app.
export function noteTurn() {
  var mine = !!page.state && !page.watching && !page.state.finished && page.state.turn === page.state.me;
  if (mine === page.myTurn) return;
  page.myTurn = mine;
  if (mine) haptic("notification", "warning");
  call(mine ? "enableClosingConfirmation" : "disableClosingConfirmation");
}

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

export function showFullscreen() {
  var button = clear(document.getElementById("full"));
  var full = !!(page.tg && page.tg.isFullscreen);
  page.root.setAttribute("data-full", full ? "1" : "0");
  button.appendChild(cornersIcon(full ? CORNERS_IN : CORNERS_OUT));
  button.setAttribute("aria-pressed", full ? "true" : "false");
}

export function toggleFullscreen() {
  if (page.tg && page.tg.isFullscreen) call("exitFullscreen");
  else call("requestFullscreen");
}

// Telegram's BackButton: out of full screen first, then out of the app.
export function onBack() {
  if (page.tg && page.tg.isFullscreen) call("exitFullscreen");
  else call("close");
}
