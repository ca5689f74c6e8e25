/// How `ChromeSession.start` launches chromedriver and Chromium.
public struct ChromeSessionOptions: Sendable {
  /// Chromium command-line switches; the defaults suit a root container without a display.
  public var arguments = [
    "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900", "--disable-gpu",
  ]
  /// False adds `--blink-settings=scriptEnabled=false`: pages run no JavaScript of their own
  /// (WebDriver commands still work).
  public var javaScriptEnabled = true
  /// W3C page-load timeout for navigate, back, forward and refresh.
  public var pageLoadTimeout: Duration = .seconds(20)
  /// W3C script timeout for executeAsyncScript.
  public var scriptTimeout: Duration = .seconds(15)
  /// How long chromedriver may take to become ready and Chromium to start.
  public var startupTimeout: Duration = .seconds(45)
  /// HTTP timeout for any other command.
  public var commandTimeout: Duration = .seconds(30)

  /// The defaults.
  public init() {}

  /// The switches actually passed to Chromium.
  var effectiveArguments: [String] {
    javaScriptEnabled ? arguments : arguments + ["--blink-settings=scriptEnabled=false"]
  }

  /// The W3C new-session capabilities.
  var capabilities: WebDriverJSON {
    [
      "capabilities": [
        "alwaysMatch": [
          "browserName": "chrome",
          "pageLoadStrategy": "normal",
          "timeouts": [
            "implicit": 0,
            "pageLoad": .number(pageLoadTimeout.asTimeInterval * 1000),
            "script": .number(scriptTimeout.asTimeInterval * 1000),
          ],
          "goog:chromeOptions": [
            "binary": .string(ChromeSession.chromiumPath),
            "args": .array(effectiveArguments.map { .string($0) }),
          ],
          "goog:loggingPrefs": ["browser": "ALL"],
        ]
      ]
    ]
  }
}
