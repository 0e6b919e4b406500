// A small stand-in for https://telegram.org/js/telegram-web-app.js, served to the Mini App
// by the browser tests (tests/support/webapp_page.py routes that URL here: Telegram's own copy
// cannot be fetched in tests). Like Telegram's script it reads the launch parameters from
// the URL hash (tgWebAppData, tgWebAppThemeParams…), sets the --tg-theme-* CSS variables
// and exposes window.Telegram.WebApp. Whatever the page asks of Telegram is recorded in
// window.__tg for the tests to read (haptics, the MainButton, ready/expand, the
// BackButton, vertical swipes, closing confirmation, full screen); ``__tg.fire(name)``
// plays one of Telegram's events (activated, deactivated…), ``__tg.tapBack()`` a tap on the
// BackButton. Methods newer than the launch's tgWebAppVersion throw, as Telegram's do.
(function () {
  "use strict";
  var params = {};
  var hash = location.hash.replace(/^#/, "");
  hash.split("&").forEach(function (pair) {
    if (!pair) return;
    var at = pair.indexOf("=");
    var key = decodeURIComponent(at < 0 ? pair : pair.slice(0, at));
    params[key] = at < 0 ? "" : decodeURIComponent(pair.slice(at + 1));
  });
  var initData = params.tgWebAppData || "";
  var unsafe = {};
  initData.split("&").forEach(function (pair) {
    if (!pair) return;
    var at = pair.indexOf("=");
    var key = decodeURIComponent(pair.slice(0, at));
    var value = decodeURIComponent(pair.slice(at + 1).replace(/\+/g, " "));
    if (key === "user" || key === "receiver" || key === "chat") {
      try { value = JSON.parse(value); } catch (e) { /* left as text */ }
    }
    unsafe[key] = value;
  });
  var theme = {};
  try { theme = JSON.parse(params.tgWebAppThemeParams || "{}"); } catch (e) { theme = {}; }

  function luminance(hex) {
    var m = /^#?([0-9a-f]{6})$/i.exec(hex || "");
    if (!m) return 1;
    var n = parseInt(m[1], 16);
    return (0.299 * (n >> 16) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255)) / 255;
  }
  var root = document.documentElement;
  Object.keys(theme).forEach(function (key) {
    root.style.setProperty("--tg-theme-" + key.replace(/_/g, "-"), theme[key]);
  });
  var scheme = luminance(theme.bg_color) < 0.5 ? "dark" : "light";
  root.style.setProperty("--tg-color-scheme", scheme);
  root.style.setProperty("--tg-viewport-height", window.innerHeight + "px");
  root.style.setProperty("--tg-viewport-stable-height", window.innerHeight + "px");

  var record = {
    ready: 0,
    expanded: 0,
    haptics: [],
    mainClicks: 0,
    alerts: [],
    main: null,
    backButton: { visible: false, clicks: 0 },
    verticalSwipes: true,
    closingConfirmation: false,
    closingConfirmations: [],
    fullscreen: false,
    closed: false,
  };
  window.__tg = record;

  var handlers = {};
  function fire(name, context) {
    if (name === "activated") WebApp.isActive = true;
    if (name === "deactivated") WebApp.isActive = false;
    (handlers[name] || []).slice().forEach(function (fn) { fn.call(context || WebApp); });
  }

  function atLeast(version) {
    var a = String(WebApp.version).split(".");
    var b = String(version).split(".");
    for (var i = 0; i < Math.max(a.length, b.length); i++) {
      var x = parseInt(a[i] || "0", 10);
      var y = parseInt(b[i] || "0", 10);
      if (x !== y) return x > y;
    }
    return true;
  }
  function since(version, name, fn) {
    return function () {
      if (!atLeast(version)) {
        throw new Error("WebAppMethodUnsupported: " + name + " needs " + version);
      }
      return fn.apply(null, arguments);
    };
  }

  // Full screen on a phone with a notch: the status bar (safe area) and Telegram's own
  // close and menu buttons (content safe area) over the top of the page.
  var SAFE = { top: 24, bottom: 16, left: 0, right: 0 };
  var CONTENT = { top: 46, bottom: 0, left: 0, right: 0 };
  function insets(name, value) {
    Object.keys(value).forEach(function (side) {
      root.style.setProperty("--tg-" + name + "-inset-" + side, value[side] + "px");
    });
  }
  function setFullscreen(on) {
    if (WebApp.isFullscreen === on) {
      fire("fullscreenFailed", { error: on ? "ALREADY_FULLSCREEN" : "UNSUPPORTED" });
      return;
    }
    WebApp.isFullscreen = on;
    record.fullscreen = on;
    var zero = { top: 0, bottom: 0, left: 0, right: 0 };
    WebApp.safeAreaInset = on ? SAFE : zero;
    WebApp.contentSafeAreaInset = on ? CONTENT : zero;
    insets("safe-area", WebApp.safeAreaInset);
    insets("content-safe-area", WebApp.contentSafeAreaInset);
    fire("safeAreaChanged");
    fire("contentSafeAreaChanged");
    fire("fullscreenChanged");
  }

  var mainClick = [];
  var backClick = [];
  var MainButton = {
    text: "CONTINUE",
    color: theme.button_color || "#2481cc",
    textColor: theme.button_text_color || "#ffffff",
    isVisible: false,
    isActive: true,
    isProgressVisible: false,
    setText: function (text) { MainButton.text = String(text); return sync(); },
    setParams: function (p) {
      if ("text" in p) MainButton.text = String(p.text);
      if ("color" in p) MainButton.color = p.color;
      if ("text_color" in p) MainButton.textColor = p.text_color;
      if ("is_visible" in p) MainButton.isVisible = !!p.is_visible;
      if ("is_active" in p) MainButton.isActive = !!p.is_active;
      return sync();
    },
    show: function () { MainButton.isVisible = true; return sync(); },
    hide: function () { MainButton.isVisible = false; return sync(); },
    enable: function () { MainButton.isActive = true; return sync(); },
    disable: function () { MainButton.isActive = false; return sync(); },
    showProgress: function () { MainButton.isProgressVisible = true; return sync(); },
    hideProgress: function () { MainButton.isProgressVisible = false; return sync(); },
    onClick: function (fn) { mainClick.push(fn); return MainButton; },
    offClick: function (fn) {
      mainClick = mainClick.filter(function (f) { return f !== fn; });
      return MainButton;
    },
  };
  function sync() {
    record.main = {
      text: MainButton.text,
      visible: MainButton.isVisible,
      active: MainButton.isActive,
    };
    return MainButton;
  }
  sync();
  // What a tap on Telegram's own button does (the tests call it).
  record.clickMainButton = function () {
    if (!MainButton.isVisible || !MainButton.isActive) return false;
    record.mainClicks += 1;
    mainClick.slice().forEach(function (fn) { fn(); });
    return true;
  };

  function haptic(kind) {
    return function (style) {
      record.haptics.push(kind + ":" + (style || ""));
      return WebApp.HapticFeedback;
    };
  }

  var WebApp = {
    initData: initData,
    initDataUnsafe: unsafe,
    version: params.tgWebAppVersion || "7.0",
    platform: params.tgWebAppPlatform || "unknown",
    colorScheme: scheme,
    themeParams: theme,
    isExpanded: false,
    viewportHeight: window.innerHeight,
    viewportStableHeight: window.innerHeight,
    MainButton: MainButton,
    BackButton: {
      isVisible: false,
      show: function () { WebApp.BackButton.isVisible = record.backButton.visible = true; },
      hide: function () { WebApp.BackButton.isVisible = record.backButton.visible = false; },
      onClick: function (fn) { backClick.push(fn); },
      offClick: function (fn) {
        backClick = backClick.filter(function (f) { return f !== fn; });
      },
    },
    isActive: true,
    isFullscreen: false,
    safeAreaInset: { top: 0, bottom: 0, left: 0, right: 0 },
    contentSafeAreaInset: { top: 0, bottom: 0, left: 0, right: 0 },
    isVerticalSwipesEnabled: true,
    isClosingConfirmationEnabled: false,
    isVersionAtLeast: atLeast,
    disableVerticalSwipes: since("7.7", "disableVerticalSwipes", function () {
      WebApp.isVerticalSwipesEnabled = record.verticalSwipes = false;
    }),
    enableVerticalSwipes: since("7.7", "enableVerticalSwipes", function () {
      WebApp.isVerticalSwipesEnabled = record.verticalSwipes = true;
    }),
    enableClosingConfirmation: function () {
      WebApp.isClosingConfirmationEnabled = record.closingConfirmation = true;
      record.closingConfirmations.push(true);
    },
    disableClosingConfirmation: function () {
      WebApp.isClosingConfirmationEnabled = record.closingConfirmation = false;
      record.closingConfirmations.push(false);
    },
    requestFullscreen: since("8.0", "requestFullscreen", function () { setFullscreen(true); }),
    exitFullscreen: since("8.0", "exitFullscreen", function () { setFullscreen(false); }),
    HapticFeedback: {
      impactOccurred: haptic("impact"),
      notificationOccurred: haptic("notification"),
      selectionChanged: haptic("selection"),
    },
    ready: function () { record.ready += 1; },
    expand: function () { record.expanded += 1; WebApp.isExpanded = true; },
    close: function () { record.closed = true; },
    onEvent: function (name, fn) { (handlers[name] = handlers[name] || []).push(fn); },
    offEvent: function (name, fn) {
      handlers[name] = (handlers[name] || []).filter(function (f) { return f !== fn; });
    },
    showAlert: function (text, done) { record.alerts.push(String(text)); if (done) done(); },
    setHeaderColor: function () {},
    setBackgroundColor: function () {},
  };
  record.fire = fire;
  record.tapBack = function () {
    if (!WebApp.BackButton.isVisible) return false;
    record.backButton.clicks += 1;
    backClick.slice().forEach(function (fn) { fn(); });
    return true;
  };
  window.Telegram = { WebApp: WebApp };
})();
