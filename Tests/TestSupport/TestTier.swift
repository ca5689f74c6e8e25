import Foundation
import Testing

/// The tier the running tests belong to. `script/test --quick` runs the in-process tier: it sets
/// `REPOSCROLL_TEST_TIER=in-process`, and every test that would start a child process (a server, a
/// browser, `redis-server`, nginx, `openssl`...) is skipped at that moment instead, with the name of
/// what it would have started. The full run (`script/test`) runs everything.
///
/// The rule is what a test starts, not a list of targets: child processes start only through
/// `ProcessRunner` and `RedisServerProcess`, which ask `startingProcess(_:)` first, and
/// `script/check-tests` fails on a file under `Tests/` that starts a process any other way without
/// asking it.
///
/// ```swift
/// try TestTier.startingProcess("static-server")  // skipped here under `script/test --quick`
/// let process = Process()
/// ```
public enum TestTier {
  /// The environment variable `script/test` sets.
  public static let variable = "REPOSCROLL_TEST_TIER"

  /// True when only in-process tests run (`REPOSCROLL_TEST_TIER=in-process`).
  public static var isInProcessOnly: Bool {
    ProcessInfo.processInfo.environment[variable] == "in-process"
  }

  /// Call right before starting the child process `name`. In the in-process tier it ends the current
  /// test as skipped ("skipped: starts NAME (not in-process)"); otherwise it returns. Off the test's
  /// task (on a thread of its own) there is no test to skip: it then throws `OffTask`, and the test
  /// should ask first, on its task.
  public static func startingProcess(_ name: String) throws {
    guard isInProcessOnly else { return }
    guard Test.current != nil else { throw OffTask(name: name) }
    try Test.cancel("skipped: starts \(name) (not in-process)")
  }

  /// A process was about to start off the test's task in the in-process tier.
  public struct OffTask: Error, CustomStringConvertible {
    /// What would have started.
    public let name: String
    /// What happened and what to do.
    public var description: String {
      "\(name) would start in the in-process tier, off the test's task: call "
        + "TestTier.startingProcess(\"\(name)\") in the test itself before going to a thread"
    }
  }
}
