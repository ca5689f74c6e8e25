import Clocks
import Redis
import Synchronization
import TestSupport
import Testing

/// Exclusive connections, cancelled waiters and shutdown.
@Suite(.timeLimit(.minutes(3))) struct RedisClientLifecycleTests {
  @Test(arguments: RedisTransport.allCases) func aTransactionRunsOnOneExclusiveConnection(
    _ transport: RedisTransport
  ) async throws {
    try await RedisClient.withServer(transport) { _, client in
      let replies = try await client.withConnection { connection throws(RedisError) in
        try await connection.pipeline([
          RedisCommand("MULTI"), RedisCommand("INCR", "tx"), RedisCommand("INCR", "tx"), RedisCommand("EXEC"),
        ])
      }
      expectEqual(replies.first, .simpleString("OK"))
      expectEqual(replies.last, .array([.integer(1), .integer(2)]))
    }
  }

  @Test(arguments: RedisTransport.allCases) func aCancelledWaiterDoesNotKeepTheConnectionItWasOffered(
    _ transport: RedisTransport
  ) async throws {
    let server = try await RedisServerProcess(transport)
    let client = try RedisClient(try RedisConfiguration.relaxed(server).pool(1), time: .system)
    defer { client.shutdown() }
    // Structured (as every wait below): a suite's time limit cancels it, so a hang fails the test.
    _ = try await client.whileAConnectionSleeps("0.3") {
      let waiter = Task { try await client.ping() }
      try await waitUntil("the ping waits for it", poll: .milliseconds(2)) { client.statistics.waiting > 0 }
      waiter.cancel()
      await #expect(throws: RedisError.cancelled) { try await waiter.value }
    }
    // The single connection went back to the pool rather than to the cancelled waiter.
    try await client.ping()
    expectEqual(client.statistics, RedisClient.Statistics(open: 1, idle: 1, waiting: 0))
  }

  @Test(arguments: RedisTransport.allCases) func callsRacingShutdownAllFinish(_ transport: RedisTransport)
    async throws
  {
    let server = try await RedisServerProcess(transport)
    let configuration = try RedisConfiguration.relaxed(server)
    // Shutting down while calls are connecting, sending or waiting for the pool: each must end with a
    // reply or a typed error rather than wait for a loop that has stopped.
    for round in 0..<20 {
      let client = try RedisClient(configuration, time: .system)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for index in 0..<12 {
          group.addTask {
            if index % 3 == 0 { _ = try? await client.subscribe(to: ["c"]) }
            _ = try? await client.execute(["ECHO", RedisArgument(index)])
          }
        }
        // Every other round, shut down once a connection is under way rather than at once.
        if round % 2 == 1 {
          try await waitUntil("a connection opening", poll: .milliseconds(1)) { client.statistics.open > 0 }
        }
        client.shutdown()
        try await group.waitForAll()
      }
    }
  }

  @Test(arguments: RedisTransport.allCases) func shutdownFailsCallsInFlightAndLater(
    _ transport: RedisTransport
  ) async throws {
    let server = try await RedisServerProcess(transport)
    let client = try RedisClient(try RedisConfiguration.relaxed(server), time: .system)
    async let sleeping: RESPValue = client.execute(["DEBUG", "SLEEP", "1"])
    try await waitUntil("the call holds a connection", poll: .milliseconds(2)) {
      client.statistics.open == 1 && client.statistics.idle == 0
    }
    client.shutdown()
    let inFlight: Result<RESPValue, any Error>
    do { inFlight = .success(try await sleeping) } catch { inFlight = .failure(error) }
    #expect(throws: RedisError.shutDown) { try inFlight.get() }
    await #expect(throws: RedisError.shutDown) { try await client.ping() }
    await #expect(throws: RedisError.shutDown) { try await client.subscribe(to: ["x"]) }
  }
}
