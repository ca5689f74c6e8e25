import Redis
import TestSupport
import Testing

/// Exclusive connections, cancelled waiters and shutdown.
@Suite(.timeLimit(.minutes(3))) struct RedisClientLifecycleTests {
  @Test func aTransactionRunsOnOneExclusiveConnection() async throws {
    let server = try await RedisServerProcess()
    let client = try RedisClient(try RedisConfiguration.relaxed(url: server.url()))
    defer { client.shutdown() }
    let replies = try await client.withConnection { connection throws(RedisError) in
      try await connection.pipeline([
        RedisCommand("MULTI"), RedisCommand("INCR", "tx"), RedisCommand("INCR", "tx"), RedisCommand("EXEC"),
      ])
    }
    #expect(replies.first == .simpleString("OK"))
    #expect(replies.last == .array([.integer(1), .integer(2)]))
  }

  @Test func aCancelledWaiterDoesNotKeepTheConnectionItWasOffered() async throws {
    let server = try await RedisServerProcess()
    var configuration = try RedisConfiguration.relaxed(url: server.url())
    configuration.poolSize = 1
    configuration.poolTimeout = .seconds(10)
    let client = try RedisClient(configuration)
    defer { client.shutdown() }
    let busy = Task { try await client.execute(["DEBUG", "SLEEP", "0.3"]) }
    while client.statistics.open == 0 { try await Task.sleep(for: .milliseconds(2)) }
    let waiter = Task { try await client.ping() }
    while client.statistics.waiting == 0 { try await Task.sleep(for: .milliseconds(2)) }
    waiter.cancel()
    await #expect(throws: RedisError.cancelled) { try await waiter.value }
    _ = try await busy.value
    // The single connection went back to the pool rather than to the cancelled waiter.
    try await client.ping()
    #expect(client.statistics == RedisClient.Statistics(open: 1, idle: 1, waiting: 0))
  }

  @Test func callsRacingShutdownAllFinish() async throws {
    let server = try await RedisServerProcess()
    let configuration = try RedisConfiguration.relaxed(url: server.url())
    // Shutting down while calls are connecting, sending or waiting for the pool: each must end with a
    // reply or a typed error rather than wait for a loop that has stopped.
    for round in 0..<20 {
      let client = try RedisClient(configuration)
      let calls = (0..<12).map { index in
        Task { () -> Bool in
          if index % 3 == 0 { _ = try? await client.subscribe(to: ["c"]) }
          return (try? await client.execute(["ECHO", RedisArgument(index)])) != nil
        }
      }
      if round % 2 == 1 { try await Task.sleep(for: .milliseconds(1)) }
      client.shutdown()
      for call in calls { _ = await call.value }
    }
  }

  @Test func shutdownFailsCallsInFlightAndLater() async throws {
    let server = try await RedisServerProcess()
    let client = try RedisClient(try RedisConfiguration.relaxed(url: server.url()))
    let sleeping = Task { try await client.execute(["DEBUG", "SLEEP", "1"]) }
    try await Task.sleep(for: .milliseconds(100))
    client.shutdown()
    await #expect(throws: RedisError.shutDown) { try await sleeping.value }
    await #expect(throws: RedisError.shutDown) { try await client.ping() }
    await #expect(throws: RedisError.shutDown) { try await client.subscribe(to: ["x"]) }
  }
}
