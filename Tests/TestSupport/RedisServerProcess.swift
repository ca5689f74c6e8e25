import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A throwaway `redis-server` on a free loopback port: no persistence, its own temporary folder, stopped
/// (or killed) by PID. It installs nothing: `script/test` installs Debian's `redis-server` first.
public final class RedisServerProcess: Sendable {
  /// The port it listens on; kept across `restart()`.
  public let port: Int
  /// The password it requires, if any.
  public let password: String?
  private let directory: String
  private let process: ProcessRunnerBox

  /// Holds the current process so `restart` can replace it.
  private final class ProcessRunnerBox: @unchecked Sendable {
    // @unchecked Sendable: `runner` is replaced only by `restart`/`kill`, which tests call from one task.
    var runner: ProcessRunner?
  }

  /// Starts a server (with `--requirepass` when `password` is given) and waits until it accepts connections.
  public init(password: String? = nil, extraArguments: [String] = []) async throws {
    // Asked before the retries below, which would otherwise take the skip for a failed start.
    try TestTier.startingProcess("redis-server")
    self.password = password
    directory = NSTemporaryDirectory() + "redis-test-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    process = ProcessRunnerBox()
    var lastError: (any Error)?
    // A port that was free a moment ago may be taken by the time the server binds it; try a few.
    for _ in 0..<5 {
      let candidate = try ProcessRunner.freeLoopbackPort()
      do {
        process.runner = try await Self.launch(
          port: candidate, password: password, directory: directory, extra: extraArguments)
        self.port = candidate
        self.extraArguments = extraArguments
        return
      } catch {
        lastError = error
      }
    }
    throw lastError ?? WebDriverError.process("redis-server did not start")
  }

  private let extraArguments: [String]

  deinit {
    if let runner = process.runner { Glibc.kill(-runner.pid, SIGKILL) }
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// `redis://[:password@]127.0.0.1:port/db`.
  public func url(database: Int = 0) -> String {
    let auth = password.map { ":\($0)@" } ?? ""
    return "redis://\(auth)127.0.0.1:\(port)/\(database)"
  }

  /// The server's process id while it runs.
  public var pid: pid_t? { process.runner?.pid }

  /// Kills the server at once (SIGKILL), as a crash would.
  public func kill() async {
    await process.runner?.terminate(signal: SIGKILL, grace: .seconds(2))
    process.runner = nil
  }

  /// Stops the server with SIGTERM.
  public func stop() async {
    await process.runner?.terminate()
    process.runner = nil
  }

  /// Starts the server again on the same port (after `kill` or `stop`).
  public func restart() async throws {
    if process.runner != nil { await stop() }
    var lastError: (any Error)?
    // The old socket may linger for a moment; retry the bind briefly.
    for _ in 0..<20 {
      do {
        process.runner = try await Self.launch(
          port: port, password: password, directory: directory, extra: extraArguments)
        return
      } catch {
        lastError = error
        // Real time: the kernel frees the old process's port on its own.
        try await Task.sleep(for: .milliseconds(100))
      }
    }
    throw lastError ?? WebDriverError.process("redis-server did not restart")
  }

  private static func launch(port: Int, password: String?, directory: String, extra: [String]) async throws
    -> ProcessRunner
  {
    var arguments = [
      "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory,
      // Tests slow the server down with DEBUG SLEEP; Redis 7 refuses DEBUG unless this is set.
      "--enable-debug-command", "yes",
    ]
    if let password { arguments += ["--requirepass", password] }
    let runner = try ProcessRunner(
      executable: "redis-server", arguments: arguments + extra, name: "redis-server")
    do {
      _ = try await runner.waitForLine(matching: "Ready to accept connections", timeout: .seconds(10))
      return runner
    } catch {
      await runner.terminate(signal: SIGKILL, grace: .seconds(1))
      throw error
    }
  }
}
