import Foundation
import TestSupport
import Testing

extension BrowserSuites {
  /// The search box is the product's main control: at least 240 px at every desktop width and 40% of a
  /// phone's width, signed in (avatar, login, Sign out) or not (Sign in with GitHub), in every engine,
  /// against `repo-scroll --demo` (its double plays GitHub's OAuth side). Screenshots of each case go
  /// to `Reader.screenshotFolder()`.
  @Suite("The search box keeps its room in every engine", .timeLimit(.minutes(8)))
  struct SearchBoxBrowserTests {
    /// Desktop window widths: from a small laptop's to a wide screen's.
    static let desktopWidths = [1920, 1440, 1280, 1100, 1024, 900, 800]
    /// Phone widths (MiniBrowser's narrowest window stands for them in WebKit).
    static let phoneWidths = [430, 390, 320]
    /// The login the reader signs in with: long, as the header must hold it.
    static let login = "mona-lisa-octocat-of-many-words"

    /// The search box's width, the viewport's, and whether anything sticks out sideways.
    static let measure = """
      const q = document.getElementById('q').getBoundingClientRect();
      return { q: q.width, width: document.documentElement.clientWidth, inner: innerWidth,
               overflow: document.documentElement.scrollWidth - innerWidth,
               signedIn: !!document.querySelector('.account-login'),
               signIn: !!document.querySelector('a.account-signin') };
      """

    /// Sets the page to `width` CSS px: DevTools metrics in Chromium (which sizes headless windows its
    /// own way), WebDriver BiDi's viewport in Firefox, the window in MiniBrowser; false where the engine
    /// cannot (MiniBrowser below its narrowest window).
    private func resize(_ session: BrowserSession, width: Int, phone: Bool) async throws -> Bool {
      switch (session.engine, phone) {
      case (.chromium, false):
        try await session.cdp(
          "Emulation.setDeviceMetricsOverride",
          ["width": .number(Double(width)), "height": 900, "deviceScaleFactor": 1, "mobile": false])
      case (.chromium, true), (.firefox, true):
        try await session.setViewport(width: width, height: 844)
      case (.firefox, false):
        // BiDi's viewport outlasts window changes: desktops through it too.
        try await session.setViewport(width: width, height: 900)
      case (.webkit, false):
        try await session.command(
          "POST", "/window/rect", body: ["width": .number(Double(width)), "height": 900])
      case (.webkit, true):
        guard width == Self.phoneWidths[0] else { return false }
        try await session.command(
          "POST", "/window/rect", body: ["width": .number(Double(Reader.webKitNarrowest)), "height": 844])
      }
      try await session.waitForScript(
        "document.documentElement.clientWidth > 0 && Math.abs(innerWidth - \(width)) <= 24",
        description: "\(session.engine): the page at about \(width) px", timeout: .seconds(10))
      try await session.executeAsyncScript(EngineFlowBrowserTests.twoFrames)
      return true
    }

    /// Signs in through the demo double's authorize page and comes back to the list.
    private func signIn(_ session: BrowserSession) async throws {
      let link = try #require(try await session.findElement(css: "a.account-signin"))
      try await session.click(link)
      try await session.waitForScript("document.querySelector('input[name=login]')", timeout: .seconds(15))
      try await session.executeScript(
        "document.querySelector('input[name=login]').value = arguments[0];", args: [.string(Self.login)])
      try await session.click(try #require(try await session.findElement(css: "button[value=authorize]")))
      try await session.waitForScript(
        "document.querySelector('.account-login') && \(Reader.cardCount) >= 20", timeout: .seconds(15))
    }

    /// Measures every width in `session` (signed in or not) and takes the screenshots.
    private func measureEveryWidth(_ session: BrowserSession, signedIn: Bool) async throws {
      let engine = session.engine
      let state = signedIn ? "signed-in" : "signed-out"
      for (widths, phone) in [(Self.desktopWidths, false), (Self.phoneWidths, true)] {
        for width in widths {
          guard try await resize(session, width: width, phone: phone) else { continue }
          let m = try await session.executeScript(Self.measure)
          let q = m["q"]?.double ?? 0
          let shown = m["width"]?.double ?? 1
          expectTrue(m["signedIn"]?.bool == signedIn && m["signIn"]?.bool == !signedIn, "\(engine): \(m)")
          if phone {
            expectTrue(q >= 0.4 * shown, "\(engine) \(state) at \(width) px: the box is \(q) of \(shown) px")
          } else {
            expectTrue(q >= 240, "\(engine) \(state) at \(width) px: the box is \(q) px")
          }
          expectTrue((m["overflow"]?.double ?? 1) <= 0, "\(engine) \(state) at \(width) px: \(m)")
          print("search box \(engine) \(state) \(width) px: \(Int(q)) px of \(Int(shown))")
          if width == 1280 || width == 390 || (engine == .webkit && width == Self.phoneWidths[0]) {
            try await Reader.screenshot(session, "search-\(engine)-\(state)-\(phone ? "phone" : "desktop")")
          }
        }
      }
    }

    @Test(arguments: BrowserEngine.allCases)
    func theSearchBoxKeepsItsRoom(_ engine: BrowserEngine) async throws {
      let app = try ProcessRunner.fastDemo()
      let port = try await app.waitForListeningPort()
      try await withCleanup({ await app.terminate() }) {
        let options = BrowserSessionOptions(engine: engine).with { $0.reducedMotion = true }
        try await withBrowserSession(options: options) { session in
          try await session.navigate(to: "http://127.0.0.1:\(port)/?\(Reader.query)")
          try await session.waitForScript("\(Reader.cardCount) >= 20", timeout: .seconds(15))
          try await measureEveryWidth(session, signedIn: false)
          // Signed in, at a desktop width (the double's authorize page is a page of its own).
          _ = try await resize(session, width: 1280, phone: false)
          try await signIn(session)
          try await measureEveryWidth(session, signedIn: true)
        }
      }
    }
  }
}
