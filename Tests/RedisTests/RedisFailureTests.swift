import Redis
import Synchronization
import TestSupport
import Testing

/// The largest count seen, from concurrent tasks.
final class Peak: Sendable {
  private let state = Mutex(0)
  func record(_ count: Int) { state.withLock { $0 = max($0, count) } }
  var value: Int { state.withLock { $0 } }
}

/// The client when the server is slow, dies, restarts, or is busy beyond the pool.
@Suite struct RedisFailureTests {
  static func configuration(_ server: RedisServerProcess) throws -> RedisConfiguration {
    var configuration = try RedisConfiguration(url: server.url())
    configuration.commandTimeout = .seconds(10)
    configuration.reconnectDelay = .milliseconds(20)
    return configuration
  }

  @Test func aServerKilledMidCommandFailsTheCallWithConnectionLost() async throws {
    let server = try await RedisServerProcess()
    let client = try RedisClient(try Self.configuration(server))
    defer { client.shutdown() }
    try await client.ping()
    let sleeping = Task { try await client.execute(["DEBUG", "SLEEP", 5]) }
    try await Task.sleep(for: .milliseconds(200))
    await server.kill()
    // Within the 10 s command timeout, so a hang would show up as .timeout instead.
    await #expect {
      try await sleeping.value
    } throws: { error in
      guard case RedisError.connectionLost = error else { return false }
      return true
    }
    // With the server gone, calls fail fast with connectionLost (refused), not a timeout.
    await #expect {
      try await client.ping()
    } throws: { error in
      guard case RedisError.connectionLost = error else { return false }
      return true
    }
  }

  @Test func reconnectsByItselfAfterTheServerRestarts() async throws {
    let server = try await RedisServerProcess()
    let client = try RedisClient(try Self.configuration(server))
    defer { client.shutdown() }
    try await client.set("before", [1])
    await server.kill()
    await #expect(throws: RedisError.self) { try await client.ping() }
    try await server.restart()
    var answered = false
    for _ in 0..<100 where !answered {
      do {
        try await client.ping()
        answered = true
      } catch {
        try await Task.sleep(for: .milliseconds(20))
      }
    }
    #expect(answered)
    // A fresh server: nothing was persisted, and the new connection works normally.
    #expect(try await client.get("before") == nil)
    try await client.set("after", [2])
    #expect(try await client.get("after") == [2])
  }

  @Test func aSlowCommandTimesOutAndTheNextCallGetsAFreshConnection() async throws {
    let server = try await RedisServerProcess()
    var configuration = try Self.configuration(server)
    configuration.commandTimeout = .milliseconds(100)
    let client = try RedisClient(configuration)
    defer { client.shutdown() }
    await #expect(throws: RedisError.timeout(.command)) {
      try await client.execute(["DEBUG", "SLEEP", "0.5"])
    }
    // The timed-out connection was dropped; once the server is awake again a new one is opened.
    try await Task.sleep(for: .milliseconds(500))
    try await client.ping()
    #expect(client.statistics.open == 1)
  }

  @Test func aHandshakeThatNeverAnswersTimesOutAsConnect() async throws {
    // A server that is paused answers nothing, so AUTH hangs until the connect timeout.
    let server = try await RedisServerProcess(password: "pw")
    var configuration = try Self.configuration(server)
    configuration.password = "pw"
    configuration.connectTimeout = .milliseconds(150)
    let admin = try RedisClient(configuration)
    defer { admin.shutdown() }
    try await admin.execute(["CLIENT", "PAUSE", 1000, "ALL"])
    await #expect(throws: RedisError.timeout(.connect)) { try await RedisConnection.connect(configuration) }
  }

  @Test func cancellingACallEndsItAtOnceAndKeepsTheConnectionUsable() async throws {
    let server = try await RedisServerProcess()
    let client = try RedisClient(try Self.configuration(server))
    defer { client.shutdown() }
    let task = Task { try await client.execute(["DEBUG", "SLEEP", "0.3"]) }
    try await Task.sleep(for: .milliseconds(50))
    task.cancel()
    await #expect(throws: RedisError.cancelled) { try await task.value }
    // The late reply is discarded; the next command on the same connection gets its own reply.
    #expect(try await client.execute(["ECHO", "mine"]) == .bulkString(Array("mine".utf8)))
  }

  @Test func thePoolNeverOpensMoreThanItsBound() async throws {
    let server = try await RedisServerProcess()
    var configuration = try Self.configuration(server)
    configuration.poolSize = 3
    configuration.poolTimeout = .seconds(10)
    let client = try RedisClient(configuration)
    defer { client.shutdown() }
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
    #expect(peak.value <= 3)
    #expect(client.statistics.open <= 3)
    // The server saw at most three client connections (plus this check's own).
    let clients = try await client.execute(["CLIENT", "LIST"]).string ?? ""
    #expect(clients.split(separator: "\n").count <= 3)
    #expect(try await client.execute(["DBSIZE"]) == .integer(60))
  }

  @Test func callersBeyondTheBoundGetPoolExhaustedAfterThePoolTimeout() async throws {
    let server = try await RedisServerProcess()
    var configuration = try Self.configuration(server)
    configuration.poolSize = 1
    configuration.poolTimeout = .milliseconds(50)
    let client = try RedisClient(configuration)
    defer { client.shutdown() }
    async let busy: RESPValue = client.execute(["DEBUG", "SLEEP", "0.5"])
    try await Task.sleep(for: .milliseconds(100))
    await #expect(throws: RedisError.poolExhausted) { try await client.ping() }
    #expect(try await busy == .simpleString("OK"))
    try await client.ping()
  }
}
