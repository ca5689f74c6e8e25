import Foundation
import TestSupport
import Testing

/// The shared state of the WebDriver client suite: one static file server and one Chromium session,
/// created once for the whole suite because Chromium takes seconds to start and to go away.
struct BrowserFixture: Sendable {
  let session: BrowserSession
  let baseURL: String

  @TaskLocal static var current: BrowserFixture?

  /// The fixture of the running suite; fails the test when the suite scope did not provide one.
  static func require() throws -> BrowserFixture {
    try #require(current, "BrowserFixture.current is only set inside a suite marked .browserFixture")
  }
}

/// Starts `python3 -m http.server` over a temp folder of pages plus one Chromium session around a
/// suite, and tears both down afterwards even when tests fail. `.browserFixture` serves the fixture
/// pages with the page probe installed; `.moduleFixture` serves the page modules
/// (`ModuleBrowserTests`).
struct BrowserFixtureTrait: SuiteTrait, TestScoping {
  /// Writes the pages into a new folder and returns its path (removed after the suite).
  let pages: @Sendable () throws -> String
  /// Whether the session gets `installPageProbe()` first.
  let probe: Bool

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let root = try pages()
    defer { try? FileManager.default.removeItem(atPath: root) }
    try await Self.serving(root) { port in
      try await withBrowserSession { session in
        if probe { try await session.installPageProbe() }
        let fixture = BrowserFixture(session: session, baseURL: "http://127.0.0.1:\(port)")
        try await BrowserFixture.$current.withValue(fixture) { try await function() }
      }
    }
  }

  /// Runs `body` with `python3 -m http.server` serving `root` on a free loopback port, and stops the
  /// server afterwards even when `body` throws.
  static func serving(_ root: String, _ body: (Int) async throws -> Void) async throws {
    let server = try ProcessRunner(
      executable: "python3",
      arguments: ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", root],
      name: "http.server")
    do {
      try await body(try await server.waitForListeningPort(pattern: #"port (\d+)"#))
    } catch {
      await server.terminate()
      throw error
    }
    await server.terminate()
  }
}

extension Trait where Self == BrowserFixtureTrait {
  /// Runs the suite with a static fixture server and one shared Chromium session.
  static var browserFixture: Self { Self(pages: FixturePages.write, probe: true) }

  /// Runs the suite with a static server over the page modules and one shared Chromium session.
  static var moduleFixture: Self { Self(pages: ModulePages.write, probe: false) }
}

/// Browser tests run unless REPOSCROLL_SKIP_BROWSER=1; missing Chromium is a failure, not a skip.
let skipBrowser = BrowserSession.skipRequested
