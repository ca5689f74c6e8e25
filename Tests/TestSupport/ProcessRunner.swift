import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A child process for end-to-end and browser tests: spawned in its own process group, output captured to
/// temp files, stopped with SIGTERM (then SIGKILL) and killed with its whole group when dropped.
public final class ProcessRunner: Sendable {
  /// How a child process ended.
  public enum ExitStatus: Sendable, Equatable, CustomStringConvertible {
    /// It called exit with this code.
    case exited(Int32)
    /// A signal ended it.
    case signaled(Int32)

    /// "exit 0" or "signal 9".
    public var description: String {
      switch self {
      case .exited(let code): return "exit \(code)"
      case .signaled(let signal): return "signal \(signal)"
      }
    }
  }

  /// The child's process id, which is also its process group id.
  public let pid: pid_t
  /// A short label for messages.
  public let name: String
  /// The file receiving the child's standard output.
  public let stdoutPath: String
  /// The file receiving the child's standard error.
  public let stderrPath: String
  private let outputDirectory: String
  private let status = Mutex<ExitStatus?>(nil)

  /// Spawns `executable` (a path, or a bare name looked up in PATH) with `arguments`. In the
  /// in-process tier (`script/test --quick`) the current test is skipped instead (`TestTier`).
  /// `environment` entries are added to (and override) the test process's environment.
  /// `lineBuffered` runs the child under `stdbuf -oL -eL`, because C stdio (and Swift's `print`) fully
  /// buffers output to a file, which would hide a "listening on" line until the child exits.
  public init(
    executable: String, arguments: [String] = [], environment: [String: String] = [:],
    workingDirectory: String? = nil, lineBuffered: Bool = true, name: String? = nil
  ) throws {
    let path = try Self.resolveExecutable(executable)
    let label = name ?? (path as NSString).lastPathComponent
    try TestTier.startingProcess(label)
    let directory = try ScratchFolder.make("processrunner-\(label)")
    var merged = ProcessInfo.processInfo.environment
    merged.merge(environment) { _, new in new }
    self.name = label
    self.outputDirectory = directory
    self.stdoutPath = directory + "/stdout"
    self.stderrPath = directory + "/stderr"
    self.pid = try Self.spawn(
      path: path, arguments: [path] + arguments,
      environment: merged.map { "\($0.key)=\($0.value)" }, workingDirectory: workingDirectory,
      lineBuffered: lineBuffered,
      stdoutPath: stdoutPath, stderrPath: stderrPath)
  }

  deinit {
    if reapIfExited() == nil {
      kill(-pid, SIGKILL)
      var raw: Int32 = 0
      while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
    } else {
      kill(-pid, SIGKILL)
    }
  }

  /// Everything the child wrote to standard output so far.
  public var output: String { Self.read(stdoutPath) }
  /// Everything the child wrote to standard error so far.
  public var errorOutput: String { Self.read(stderrPath) }

  /// True until the child has exited (and been reaped).
  public var isRunning: Bool { reapIfExited() == nil }

  /// Waits until standard output or error contains a match for `pattern` and returns the match's
  /// captures (index 0 is the whole match). Fails early, with the output, if the child exits.
  public func waitForLine(matching pattern: String, timeout: Duration = .seconds(15)) async throws
    -> [String]
  {
    let regex = try Regex(pattern)
    let deadline = ContinuousClock.now + timeout
    while true {
      for text in [output, errorOutput] {
        if let match = text.firstMatch(of: regex) {
          return match.output.map { $0.substring.map(String.init) ?? "" }
        }
      }
      if let status = reapIfExited() {
        throw WebDriverError.process("\(name) exited (\(status)) before printing /\(pattern)/\n\(transcript)")
      }
      if ContinuousClock.now >= deadline {
        throw WebDriverError.timeout("\(name) did not print /\(pattern)/ within \(timeout)\n\(transcript)")
      }
      // Real time: polls a child process's output, which has no event here.
      try await Task.sleep(for: .milliseconds(25))
    }
  }

  /// Waits for the "listening on http://127.0.0.1:PORT" line servers of this package print, returning PORT.
  public func waitForListeningPort(
    pattern: String = #"listening on http://127\.0\.0\.1:(\d+)"#, timeout: Duration = .seconds(15)
  ) async throws -> Int {
    let captures = try await waitForLine(matching: pattern, timeout: timeout)
    guard captures.count > 1, let port = Int(captures[1]), port > 0, port < 65536 else {
      throw WebDriverError.process("\(name): pattern /\(pattern)/ captured no port: \(captures)")
    }
    return port
  }

  /// Waits for the child to exit by itself.
  public func waitForExit(timeout: Duration = .seconds(10)) async throws -> ExitStatus {
    let deadline = ContinuousClock.now + timeout
    while true {
      if let status = reapIfExited() { return status }
      if ContinuousClock.now >= deadline {
        throw WebDriverError.timeout("\(name) (pid \(pid)) still running after \(timeout)")
      }
      // Real time: polls the child with waitpid(WNOHANG).
      try await Task.sleep(for: .milliseconds(20))
    }
  }

  /// Sends SIGTERM (or `signal`), waits up to `grace` for the exit, then SIGKILLs; finally kills whatever
  /// else is left in the child's process group (for example browsers a driver started).
  @discardableResult
  public func terminate(signal: Int32 = SIGTERM, grace: Duration = .seconds(5)) async -> ExitStatus {
    if reapIfExited() == nil { kill(pid, signal) }
    let deadline = ContinuousClock.now + grace
    while reapIfExited() == nil && ContinuousClock.now < deadline {
      // Real time: polls the child with waitpid(WNOHANG) during its grace period.
      try? await Task.sleep(for: .milliseconds(20))
    }
    if reapIfExited() == nil { kill(-pid, SIGKILL) }
    var result = reapIfExited()
    while result == nil {
      // Real time: a killed child is reaped as soon as the kernel has ended it.
      try? await Task.sleep(for: .milliseconds(10))
      result = reapIfExited()
    }
    kill(-pid, SIGKILL)
    return result ?? .signaled(SIGKILL)
  }

  /// The process's name, id and captured output, for failure messages.
  public var transcript: String {
    "--- \(name) pid \(pid) stdout ---\n\(output.suffix(4000))\n--- stderr ---\n\(errorOutput.suffix(4000))"
  }

  /// Reaps the child without blocking; the status is remembered so the pid is waited for only once.
  private func reapIfExited() -> ExitStatus? {
    status.withLock { status in
      if let status { return status }
      var raw: Int32 = 0
      let result = waitpid(pid, &raw, WNOHANG)
      if result == pid {
        // The wait-status layout: low 7 bits are the terminating signal, bits 8-15 the exit code.
        let signal = raw & 0x7f
        status = signal == 0 ? .exited((raw >> 8) & 0xff) : .signaled(signal)
      } else if result == -1 && errno == ECHILD {
        status = .exited(-1)
      }
      return status
    }
  }

  private static func read(_ path: String) -> String {
    guard let data = FileManager.default.contents(atPath: path) else { return "" }
    return String(decoding: data, as: UTF8.self)
  }
}
