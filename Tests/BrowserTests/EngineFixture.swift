import Foundation
import TestSupport
import Testing

/// One github-double and repo-scroll pair for a suite, and one default session per engine, started the
/// first time a test asks for it and kept for the suite's later tests (each test navigates afresh):
/// Firefox and WebKit take seconds to start, and the flows would otherwise spend most of their time there.
actor EnginePool {
  let processes: AppProcesses
  private var sessions: [BrowserEngine: BrowserSession] = [:]

  init(processes: AppProcesses) {
    self.processes = processes
  }

  /// The engine's shared session with default options (a dead one is replaced).
  func session(_ engine: BrowserEngine) async throws -> BrowserSession {
    if let session = sessions[engine] {
      if (try? await session.currentURL()) != nil { return session }
      await session.close()
    }
    let session = try await BrowserSession.start(options: BrowserSessionOptions(engine: engine))
    print("engine \(engine): \(session.browserVersion)")
    sessions[engine] = session
    return session
  }

  /// The engine's shared session showing the first batch of `Reader`'s search.
  func searching(_ engine: BrowserEngine) async throws -> BrowserSession {
    let session = try await session(engine)
    try await Reader.openSearch(session, processes)
    return session
  }

  /// Closes every session.
  func closeAll() async {
    for session in sessions.values { await session.close() }
    sessions = [:]
  }
}

/// The running suite's pool; see `EngineFixtureTrait`.
enum EngineFixture {
  @TaskLocal static var current: EnginePool?

  /// The pool of the running suite; fails the test when the suite scope did not provide one.
  static func require() throws -> EnginePool {
    try #require(current, "EngineFixture.current is only set inside a suite marked .engineFixture")
  }
}

/// Starts the double and the app around a suite (`Reader`'s flags), and closes its sessions and stops
/// both processes afterwards, also when tests fail.
struct EngineFixtureTrait: SuiteTrait, TestScoping {
  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await Reader.withApp { processes in
      let pool = EnginePool(processes: processes)
      do {
        try await EngineFixture.$current.withValue(pool) { try await function() }
      } catch {
        await pool.closeAll()
        throw error
      }
      await pool.closeAll()
    }
  }
}

extension Trait where Self == EngineFixtureTrait {
  /// Runs the suite with one app and a session per engine shared by its tests.
  static var engineFixture: Self { Self() }
}
