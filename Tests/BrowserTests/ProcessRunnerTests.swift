import Foundation
import TestSupport
import Testing

/// ProcessRunner on plain shell children (no browser needed).
@Suite("ProcessRunner", .serialized, .timeLimit(.minutes(10)))
struct ProcessRunnerTests {
  @Test func parsesTheListeningPortAndStopsWithSIGTERM() async throws {
    let runner = try ProcessRunner(
      executable: "/bin/sh",
      arguments: ["-c", "echo 'server listening on http://127.0.0.1:4242'; exec sleep 30"])
    try await expectEqual(runner.waitForListeningPort(), 4242)
    expectTrue(runner.isRunning)
    await expectEqual(runner.terminate(), .signaled(SIGTERM))
    expectTrue(!runner.isRunning)
  }

  /// sed writes through C stdio, which fully buffers a file: only stdbuf makes its line visible early.
  @Test(arguments: [true, false])
  func lineBufferingRevealsStdioOutputBeforeExit(lineBuffered: Bool) async throws {
    let runner = try ProcessRunner(
      executable: "/bin/sh",
      arguments: ["-c", "{ echo x; exec sleep 30; } | sed 's|x|listening on http://127.0.0.1:5151|'"],
      lineBuffered: lineBuffered)
    if lineBuffered {
      try await expectEqual(runner.waitForListeningPort(timeout: .seconds(10)), 5151)
    } else {
      await #expect(throws: WebDriverError.self) {
        try await runner.waitForListeningPort(timeout: .milliseconds(700))
      }
    }
    await runner.terminate()
  }

  @Test func capturesOutputExitCodeEnvironmentAndDirectory() async throws {
    let runner = try ProcessRunner(
      executable: "sh", arguments: ["-c", "echo \"$GREETING\"; pwd; echo oops >&2; exit 3"],
      environment: ["GREETING": "hello runner"], workingDirectory: "/tmp")
    try await expectEqual(runner.waitForExit(), .exited(3))
    expectEqual(runner.output, "hello runner\n/tmp\n")
    expectEqual(runner.errorOutput, "oops\n")
  }

  @Test func reportsAnEarlyExitWhileWaitingForTheLine() async throws {
    let runner = try ProcessRunner(executable: "/bin/sh", arguments: ["-c", "echo starting; exit 1"])
    await #expect(throws: WebDriverError.self) {
      try await runner.waitForListeningPort(timeout: .seconds(5))
    }
  }

  @Test func escalatesToSIGKILLWhenSIGTERMIsIgnored() async throws {
    let runner = try ProcessRunner(
      executable: "/bin/sh", arguments: ["-c", "trap '' TERM; echo ready; while :; do sleep 1; done"])
    _ = try await runner.waitForLine(matching: "ready")
    await expectEqual(runner.terminate(grace: .milliseconds(300)), .signaled(SIGKILL))
  }

  @Test func rejectsAMissingExecutable() {
    #expect(throws: WebDriverError.self) {
      try ProcessRunner(executable: "/nonexistent/definitely-not-here")
    }
  }

  @Test func findsThePackageRootAndAFreePort() throws {
    let root = try ProcessRunner.packageRoot()
    expectTrue(FileManager.default.fileExists(atPath: root + "/Package.swift"))
    let port = try ProcessRunner.freeLoopbackPort()
    expectTrue(port > 0 && port < 65536)
  }
}
