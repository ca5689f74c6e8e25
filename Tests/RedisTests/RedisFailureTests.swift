import Clocks
import Redis
import Synchronization
import TestSupport
import Testing

/// Calls answered and failed so far, from concurrent tasks.
final class Tally: Sendable {
  private let state = Mutex((ok: 0, failed: 0))
  func record(ok: Bool) { state.withLock { ok ? ($0.ok += 1) : ($0.failed += 1) } }
  var ok: Int { state.withLock { $0.ok } }
  var failed: Int { state.withLock { $0.failed } }
}

/// The largest count seen, from concurrent tasks.
final class Peak: Sendable {
  private let state = Mutex(0)
  func record(_ count: Int) { state.withLock { $0 = max($0, count) } }
  var value: Int { state.withLock { $0 } }
}

/// The client when the server is slow, dies, restarts, or is busy beyond the pool.
@Suite(.timeLimit(.minutes(3))) struct RedisFailureTests {
  static func configuration(_ server: RedisServerProcess) throws -> RedisConfiguration {
    var configuration = try RedisConfiguration.relaxed(server)
    configuration.commandTimeout = .seconds(10)
    configuration.reconnectDelay = .milliseconds(20)
    return configuration
  }

  /// A client of `server` with the configuration above, then `configure`.
  static func client(_ server: RedisServerProcess, _ configure: (inout RedisConfiguration) -> Void = { _ in })
    throws -> RedisClient
  {
    var configuration = try Self.configuration(server)
    configure(&configuration)
    return try RedisClient(configuration, time: .system)
  }

  /// Runs `body` with a fresh server and a client of it with the configuration above, then `configure`.
  static func withServer(
    _ transport: RedisTransport, _ configure: (inout RedisConfiguration) -> Void = { _ in },
    _ body: (RedisServerProcess, RedisClient) async throws -> Void
  ) async throws {
    try await RedisClient.withServer(transport, client: { try Self.client($0, configure) }, body)
  }

  @Test(arguments: RedisTransport.allCases) func aServerKilledMidCommandFailsTheCallWithConnectionLost(
    _ transport: RedisTransport
  ) async throws {
    try await Self.withServer(transport) { server, client in
      try await client.ping()
      let sleeping = Task { try await client.execute(["DEBUG", "SLEEP", 5]) }
      try await waitUntil("the call holds the connection", poll: .milliseconds(2)) {
        client.statistics.idle == 0
      }
      await server.kill()
      // Within the 10 s command timeout, so a hang would show up as .timeout instead.
      await #expect {
        try await sleeping.value
      } throws: { RedisError.lostReason(of: $0) != nil }
      // With the server gone, calls fail fast with connectionLost (refused), not a timeout.
      await #expect {
        try await client.ping()
      } throws: { RedisError.lostReason(of: $0) != nil }
    }
  }

  @Test(arguments: RedisTransport.allCases) func reconnectsByItselfAfterTheServerRestarts(
    _ transport: RedisTransport
  ) async throws {
    try await Self.withServer(transport) { server, client in
      try await client.set("before", [1])
      await server.kill()
      await #expect(throws: RedisError.self) { try await client.ping() }
      try await server.restart()
      expectTrue(await eventually(poll: .milliseconds(20)) { (try? await client.ping()) != nil })
      // A fresh server: nothing was persisted, and the new connection works normally.
      try await expectEqual(client.get("before"), nil)
      try await client.set("after", [2])
      try await expectEqual(client.get("after"), [2])
    }
  }

  @Test(arguments: RedisTransport.allCases) func aSlowCommandTimesOutAndTheNextCallGetsAFreshConnection(
    _ transport: RedisTransport
  ) async throws {
    try await Self.withServer(transport, { $0.commandTimeout = .milliseconds(100) }) { _, client in
      await #expect(throws: RedisError.timeout(.command)) {
        try await client.execute(["DEBUG", "SLEEP", "1"])
      }
      // The timed-out connection was dropped; a new one is opened and answers once the server wakes.
      try await client.execute(["PING"], timeout: .seconds(10))
      expectEqual(client.statistics.open, 1)
    }
  }

  @Test(arguments: RedisTransport.allCases) func aPerCallTimeoutOverridesTheConfiguredOne(
    _ transport: RedisTransport
  ) async throws {
    try await Self.withServer(transport, { $0.commandTimeout = .milliseconds(50) }) {
      (_, client) async throws in
      // A blocking pop longer than the configured timeout, allowed for this call only.
      try await expectEqual(client.execute(["BLPOP", "empty", "0.2"], timeout: .seconds(5)), .null)
      await #expect(throws: RedisError.timeout(.command)) {
        try await client.execute(["BLPOP", "empty", "3"])
      }
    }
  }

  @Test(arguments: RedisTransport.allCases) func manyCallersThroughARestartAllFinishWithRepliesOrTypedErrors(
    _ transport: RedisTransport
  ) async throws {
    let server = try await RedisServerProcess(transport)
    let client = try Self.client(server) {
      $0.commandTimeout = .milliseconds(500)
      $0.poolSize = 4
    }
    defer { client.shutdown() }
    let tally = Tally()
    let outcomes = try await withThrowingTaskGroup(of: (ok: Int, failed: Int).self) { group in
      for worker in 0..<16 {
        group.addTask {
          var ok = 0
          var failed = 0
          for round in 0..<60 {
            do {
              let key = RedisArgument("w\(worker)")
              let replies = try await client.pipeline([
                RedisCommand("SET", key, RedisArgument(round)), RedisCommand("GET", key),
              ])
              expectEqual(replies, [.simpleString("OK"), .bulkString(Array(String(round).utf8))])
              ok += 1
              tally.record(ok: true)
            } catch {
              failed += 1
              tally.record(ok: false)
            }
            // Real time: paced so that the load spans the real kill and restart of redis-server.
            try await Task.sleep(for: .milliseconds(5))
          }
          return (ok, failed)
        }
      }
      group.addTask {
        // Kill the server under load, and restart it once calls have seen it gone.
        try await waitUntil("calls answered", poll: .milliseconds(2)) { tally.ok >= 16 }
        await server.kill()
        try await waitUntil("calls failed", poll: .milliseconds(2)) { tally.failed >= 1 }
        try await server.restart()
        return (0, 0)
      }
      return try await group.reduce(into: (ok: 0, failed: 0)) {
        $0.ok += $1.ok; $0.failed += $1.failed
      }
    }
    expectEqual(outcomes.ok + outcomes.failed, 16 * 60)
    expectTrue(outcomes.failed > 0)
    expectTrue(client.statistics.open <= 4)
    // Working again after the restart.
    expectTrue(await eventually(poll: .milliseconds(20)) { (try? await client.ping()) != nil })
  }

  @Test(arguments: RedisTransport.allCases) func aHandshakeThatNeverAnswersTimesOutAsConnect(
    _ transport: RedisTransport
  ) async throws {
    // A server that is paused answers nothing, so AUTH hangs until the connect timeout.
    let server = try await RedisServerProcess(transport, password: "pw")
    var configuration = try Self.configuration(server)
    configuration.password = "pw"
    let admin = try RedisClient(configuration, time: .system)
    defer { admin.shutdown() }
    try await admin.execute(["CLIENT", "PAUSE", 3000, "ALL"])
    configuration.connectTimeout = .milliseconds(150)
    await #expect(throws: RedisError.timeout(.connect)) {
      try await RedisConnection.connect(configuration, time: .system)
    }
  }

  @Test(arguments: RedisTransport.allCases) func cancellingACallEndsItAtOnceAndKeepsTheConnectionUsable(
    _ transport: RedisTransport
  ) async throws {
    try await Self.withServer(transport) { _, client in
      let task = Task { try await client.execute(["DEBUG", "SLEEP", "0.3"]) }
      try await waitUntil("the call holds a connection", poll: .milliseconds(2)) {
        client.statistics.open == 1 && client.statistics.idle == 0
      }
      task.cancel()
      await #expect(throws: RedisError.cancelled) { try await task.value }
      // The late reply is discarded; the next command on the same connection gets its own reply.
      try await expectEqual(client.execute(["ECHO", "mine"]), .bulkString(Array("mine".utf8)))
    }
  }

  @Test(arguments: RedisTransport.allCases) func thePoolNeverOpensMoreThanItsBound(
    _ transport: RedisTransport
  ) async throws {
    try await Self.withServer(transport, { $0.poolSize = 3 }) { server, client in
      let peak = Peak()
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<60 {
          group.addTask {
            try await client.withConnection { connection throws(RedisError) in
              let open = client.statistics.open
              peak.record(open)
              // Hold the connection across a round trip so that callers really overlap.
              try await connection.execute(["DEBUG", "SLEEP", "0.005"])
              try await connection.execute(["SET", RedisArgument("k\(index)"), RedisArgument(index)])
            }
          }
        }
        try await group.waitForAll()
      }
      expectTrue(peak.value <= 3)
      expectTrue(client.statistics.open <= 3)
      // The server saw at most three client connections (plus this check's own).
      let clients = try await client.execute(["CLIENT", "LIST"]).string ?? ""
      expectTrue(clients.split(separator: "\n").count <= 3)
      try await expectEqual(client.execute(["DBSIZE"]), .integer(60))
    }
  }

  @Test(arguments: RedisTransport.allCases) func callersBeyondTheBoundGetPoolExhaustedAfterThePoolTimeout(
    _ transport: RedisTransport
  ) async throws {
    let server = try await RedisServerProcess(transport)
    let client = try Self.client(server) {
      $0.poolSize = 1
      $0.poolTimeout = .milliseconds(50)
    }
    defer { client.shutdown() }
    // Once the one connection is taken (opening or busy), ask for another.
    let busy = try await client.whileAConnectionSleeps("0.5") {
      await #expect(throws: RedisError.poolExhausted) { try await client.ping() }
    }
    expectEqual(busy, .simpleString("OK"))
    try await client.ping()
  }
}
