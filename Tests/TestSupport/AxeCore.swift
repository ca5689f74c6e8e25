import Foundation

/// axe-core, the accessibility rules engine, injected into a page through WebDriver.
///
/// The script comes from PyPI's `axe-playwright-python` (script/test installs it), which ships
/// `axe_playwright_python/axe.min.js`; `REPOSCROLL_AXE_JS` may name another copy. A missing file fails
/// the test rather than skipping it.
public enum AxeCore {
  /// One rule's violation: its id, impact and the first few offending nodes (CSS targets and HTML).
  public struct Violation: Sendable, CustomStringConvertible {
    /// The rule's id, such as `color-contrast`.
    public let id: String
    /// axe's impact: minor, moderate, serious or critical.
    public let impact: String
    /// The first offending nodes, each as its CSS target and HTML.
    public let nodes: [String]

    /// One line for a test failure.
    public var description: String { "\(id) (\(impact)): \(nodes.joined(separator: " | "))" }
  }

  /// The script's text, read once.
  public static func source() throws -> String {
    let path = try location()
    guard let data = FileManager.default.contents(atPath: path) else {
      throw WebDriverError.process("cannot read axe-core at \(path)")
    }
    return String(decoding: data, as: UTF8.self)
  }

  /// Where axe.min.js is: `REPOSCROLL_AXE_JS`, else the installed Python package.
  static func location() throws -> String {
    if let path = ProcessInfo.processInfo.environment["REPOSCROLL_AXE_JS"], !path.isEmpty { return path }
    let path =
      Python.output(
        "import os, axe_playwright_python as a; print(os.path.join(os.path.dirname(a.__file__), 'axe.min.js'))"
      )
      ?? ""
    guard FileManager.default.fileExists(atPath: path) else {
      throw WebDriverError.unavailable(
        "axe-core is missing: pip install --no-deps axe-playwright-python (script/test does), "
          + "or set REPOSCROLL_AXE_JS to an axe.min.js")
    }
    return path
  }

  /// Injects axe (once per document) and runs every rule on the whole page.
  public static func run(in session: BrowserSession, source: String) async throws -> [Violation] {
    // The source is the script body itself: an eval would be refused by the page's CSP.
    if try await session.executeScript("return !!window.axe;").bool != true {
      try await session.executeScript(source + "\n;return !!window.axe;")
    }
    // Started by one call and read back by polling: a page that runs no scripts of its own (the no-JS
    // state) never calls an asynchronous script's callback through chromedriver. It starts from a
    // timer so that this call returns at once: axe builds its tree of the whole page before it first
    // yields, which over 300 cards on a loaded machine outlasts the driver's script timeout. The polls
    // meanwhile may time out too (`waitForScript` asks again).
    try await session.executeScript(
      """
      window.__axeResult = null;
      setTimeout(() => axe.run(document, { resultTypes: ['violations'] })
        .then((r) => { window.__axeResult = r.violations.map((v) => ({
          id: v.id, impact: v.impact || '',
          nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ' ' + n.html.slice(0, 160)),
        })); })
        .catch((e) => { window.__axeResult = [{ id: 'axe-error', impact: 'error', nodes: [String(e)] }]; }), 0);
      """)
    let reply = try await session.waitForScript(
      "window.__axeResult", description: "axe-core's results", timeout: .seconds(90), poll: .milliseconds(200)
    )
    return (reply.array ?? []).map {
      Violation(
        id: $0["id"]?.string ?? "", impact: $0["impact"]?.string ?? "",
        nodes: $0["nodes"]?.array?.compactMap(\.string) ?? [])
    }
  }
}
