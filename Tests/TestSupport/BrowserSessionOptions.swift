import Foundation

/// How `BrowserSession.start` launches a driver and its browser. The common settings (window size,
/// scripting, back/forward cache, reduced motion, dark scheme) mean the same in every engine; each engine
/// gets them its own way (switches, preferences, or DevTools emulation in Chromium).
public struct BrowserSessionOptions: Sendable {
  /// Which browser.
  public var engine: BrowserEngine
  /// The window size; the viewport is smaller in Chromium (1280×900 gives 1280×757) and MiniBrowser
  /// (its toolbar), and no MiniBrowser window is narrower than about 447 px.
  public var width = 1280
  /// The window height (see `width`).
  public var height = 900
  /// Extra Chromium switches, after the defaults (a later `--window-size` wins over `width`/`height`).
  public var arguments = ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"]
  /// Extra Firefox preferences.
  public var firefoxPreferences: [String: WebDriverJSON] = [:]
  /// The folder Firefox runs in (`-profile`); nil lets `BrowserSession.start` give it a copy of the
  /// process's used profile (`FirefoxProfileTemplate`), or geckodriver a fresh one.
  var firefoxProfile: String?
  /// True leaves `firefoxProfile` in place at close (the template's own session); a session's copy is
  /// removed with it.
  var keepsProfile = false
  /// False: pages run no JavaScript of their own (WebDriver commands still work).
  public var javaScriptEnabled = true
  /// False turns the back/forward cache off: `--disable-features=BackForwardCache`,
  /// `browser.sessionhistory.max_total_viewers=0`, `--enable-page-cache=false`.
  public var backForwardCache = true
  /// True makes `prefers-reduced-motion: reduce` match.
  public var reducedMotion = false
  /// True makes `prefers-color-scheme: dark` match.
  public var dark = false
  /// False (the default unless REPOSCROLL_WEBKIT_COMPOSITING=1) starts WebKitGTK with accelerated
  /// compositing off (`WEBKIT_DISABLE_COMPOSITING_MODE=1`), so that it paints in software the way
  /// Chromium and Firefox do here. With it on, a machine without a GPU composites through Mesa's
  /// llvmpipe: the deep skim cost WebKit 177 CPU-s at 7 fps, against 107 CPU-s at 41 fps without.
  /// script/bench-paint keeps it on, so that its figures compare with earlier rounds'.
  public var webKitCompositing = ProcessInfo.processInfo.environment["REPOSCROLL_WEBKIT_COMPOSITING"] == "1"
  /// W3C page-load timeout for navigate, back, forward and refresh.
  public var pageLoadTimeout: Duration = .seconds(20)
  /// W3C script timeout for executeAsyncScript.
  public var scriptTimeout: Duration = .seconds(15)
  /// How long the driver may take to become ready and the browser to start.
  public var startupTimeout: Duration = .seconds(60)
  /// HTTP timeout for any other command.
  public var commandTimeout: Duration = .seconds(30)

  /// The defaults for `engine` (Chromium unless named).
  public init(engine: BrowserEngine = .chromium) {
    self.engine = engine
  }

  /// These options changed by `change`: `.init(engine: .firefox).with { $0.reducedMotion = true }`.
  public func with(_ change: (inout Self) -> Void) -> Self {
    var options = self
    change(&options)
    return options
  }

  /// The switches actually passed to Chromium.
  var chromiumArguments: [String] {
    var all = ["--window-size=\(width),\(height)"] + arguments
    if !javaScriptEnabled { all.append("--blink-settings=scriptEnabled=false") }
    if !backForwardCache { all.append("--disable-features=BackForwardCache") }
    return all
  }

  /// The preferences actually given to Firefox.
  var firefoxPrefs: [String: WebDriverJSON] {
    var prefs: [String: WebDriverJSON] = [
      // No first-run pages, update checks or telemetry pings in a test profile.
      "browser.shell.checkDefaultBrowser": false, "app.update.enabled": false,
      "datareporting.policy.dataSubmissionEnabled": false, "toolkit.telemetry.enabled": false,
    ]
    if !javaScriptEnabled { prefs["javascript.enabled"] = false }
    if !backForwardCache { prefs["browser.sessionhistory.max_total_viewers"] = 0 }
    if reducedMotion { prefs["ui.prefersReducedMotion"] = 1 }
    // 0 = dark, 1 = light for content's prefers-color-scheme.
    prefs["layout.css.prefers-color-scheme.content-override"] = dark ? 0 : 1
    prefs.merge(firefoxPreferences) { _, new in new }
    return prefs
  }

  /// Firefox's switches: headless, the window, and the profile folder when there is one.
  var firefoxArguments: [String] {
    var all = ["-headless", "--width=\(width)", "--height=\(height)"]
    if let firefoxProfile { all += ["-profile", firefoxProfile] }
    return all
  }

  /// MiniBrowser's switches (WebKitSettings properties are switches too).
  var miniBrowserArguments: [String] {
    var all = ["--automation"]
    if !javaScriptEnabled { all.append("--enable-javascript=false") }
    if !backForwardCache { all.append("--enable-page-cache=false") }
    if dark { all.append("--dark-mode") }
    return all
  }

  /// The W3C new-session capabilities.
  var capabilities: WebDriverJSON {
    var always: [String: WebDriverJSON] = [
      "pageLoadStrategy": "normal",
      "timeouts": [
        "implicit": 0,
        "pageLoad": .number(pageLoadTimeout.asTimeInterval * 1000),
        "script": .number(scriptTimeout.asTimeInterval * 1000),
      ],
    ]
    switch engine {
    case .chromium:
      always["browserName"] = "chrome"
      always["goog:chromeOptions"] = [
        "binary": .string(engine.browserPath), "args": .array(chromiumArguments.map { .string($0) }),
      ]
      always["goog:loggingPrefs"] = ["browser": "ALL"]
    case .firefox:
      always["browserName"] = "firefox"
      always["webSocketUrl"] = true
      always["moz:firefoxOptions"] = [
        "binary": .string(engine.browserPath),
        "args": .array(firefoxArguments.map { .string($0) }),
        "prefs": .object(firefoxPrefs),
      ]
    case .webkit:
      always["browserName"] = "MiniBrowser"
      always["webkitgtk:browserOptions"] = [
        "binary": .string(engine.browserPath), "args": .array(miniBrowserArguments.map { .string($0) }),
      ]
    }
    return ["capabilities": ["alwaysMatch": .object(always)]]
  }
}
