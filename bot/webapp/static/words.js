// The page's words: the bot's own webapp.* texts (bot/locales), served as the module
// ../texts.js for every language, so the page has them before any session and offline;
// the session's texts (the game's language) are the same strings.

import { TEXTS } from "../texts.js";
import { page } from "./page.js";

export function t(key, vars) {
  var s = page.texts[key];
  if (typeof s !== "string") s = (TEXTS[page.lang] || TEXTS.ru || {})[key];
  if (typeof s !== "string") s = (TEXTS.en || {})[key];
  if (typeof s !== "string") s = key;
  if (vars) {
    s = s.replace(/\{(\w+)\}/g, function (all, name) {
      return name in vars ? String(vars[name]) : all;
    });
  }
  return s;
}
