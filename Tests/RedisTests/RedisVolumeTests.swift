import Clocks
import Redis
import TestSupport
import Testing

/// Large values, long pipelines and Lua scripts against a real server.
@Suite(.timeLimit(.minutes(3))) struct RedisVolumeTests {
  @Test(arguments: RedisTransport.allCases) func largeValuesRoundTrip(_ transport: RedisTransport)
    async throws
  {
    try await RedisClient.withServer(transport) { server, client in
      var value = [UInt8](repeating: UInt8(ascii: "v"), count: 6 << 20)
      for index in stride(from: 0, to: value.count, by: 65_521) {
        value[index] = UInt8(truncatingIfNeeded: index)
      }
      try await client.set("big", value)
      try await expectEqual(client.get("big"), value)
      try await expectEqual(client.execute(["STRLEN", "big"]), .integer(Int64(value.count)))
      // A reply over the client's bulk limit closes that connection with a typed error, nothing more.
      var limited = try RedisConfiguration.relaxed(server)
      limited.parserLimits.maxBulkLength = 1 << 20
      let small = try RedisClient(limited, time: .system)
      defer { small.shutdown() }
      await #expect(
        throws: RedisError.protocolViolation(.bulkTooLong(length: Int64(value.count), limit: 1 << 20))
      ) {
        try await small.get("big")
      }
      try await small.ping()
    }
  }

  @Test(arguments: RedisTransport.allCases) func pipelinesThousandsOfCommandsInOrder(
    _ transport: RedisTransport
  ) async throws {
    try await RedisClient.withServer(transport) { server, client in
      let count = 5000
      let sets = (0..<count).map { RedisCommand("SET", RedisArgument("key:\($0)"), RedisArgument($0 * 7)) }
      let setReplies = try await client.pipeline(sets)
      expectEqual(setReplies.count, count)
      expectTrue(setReplies.allSatisfy { $0 == .simpleString("OK") })
      let gets = (0..<count).map { RedisCommand("GET", RedisArgument("key:\($0)")) }
      let values = try await client.pipeline(gets)
      expectEqual(values.map(\.integer), (0..<count).map { Int64($0 * 7) })
      // Concurrent pipelines on a shared connection each get their own replies.
      let connection = try await RedisConnection.connect(
        try RedisConfiguration.relaxed(server), time: .system)
      try await withThrowingTaskGroup(of: Void.self) { group in
        for start in stride(from: 0, to: count, by: 500) {
          group.addTask {
            let range = start..<(start + 500)
            let replies = try await connection.pipeline(
              range.map { RedisCommand("GET", RedisArgument("key:\($0)")) })
            expectEqual(replies.map(\.integer), range.map { Int64($0 * 7) })
          }
        }
        try await group.waitForAll()
      }
    }
  }

  @Test(arguments: RedisTransport.allCases) func scriptsRunBySHAAndFallBackToEvalAfterAFlush(
    _ transport: RedisTransport
  ) async throws {
    try await RedisClient.withServer(transport) { _, client in
      let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
      // The locally computed digest is the one Redis uses.
      try await expectEqual(
        client.execute(["SCRIPT", "LOAD", RedisArgument(script.source)]).string, script.sha1)
      try await expectEqual(client.evaluate(script, keys: ["counter"], arguments: [5]), .integer(5))
      try await client.execute(["SCRIPT", "FLUSH"])
      try await expectEqual(client.evaluate(script, keys: ["counter"], arguments: [2]), .integer(7))
      try await expectEqual(
        client.execute(["SCRIPT", "EXISTS", RedisArgument(script.sha1)]), .array([.integer(1)]))
      await #expect {
        try await client.evaluate(RedisScript("return redis.error_reply('MINE custom failure')"))
      } throws: { RedisError.serverMessage(of: $0)?.hasPrefix("MINE") == true }
    }
  }

  @Test(arguments: RedisTransport.allCases) func lockHelpersSetOnlyIfAbsentWithExpiry(
    _ transport: RedisTransport
  ) async throws {
    try await RedisClient.withServer(transport) { _, client in
      expectTrue(try await client.setIfAbsent("lock", [1], expiresIn: .seconds(5)))
      expectTrue(try await !client.setIfAbsent("lock", [2], expiresIn: .seconds(5)))
      let ttl = try await client.execute(["PTTL", "lock"]).integer ?? -1
      expectTrue(ttl > 0 && ttl <= 5000)
      try await expectEqual(client.delete(["lock", "absent"]), 1)
      expectTrue(try await client.setIfAbsent("lock", [3], expiresIn: .milliseconds(1)))
      try await client.set("ttl", [1], expiresIn: .seconds(60))
      expectTrue(try await client.expire("ttl", after: .seconds(30)))
      expectTrue(try await !client.expire("absent", after: .seconds(30)))
      try await expectEqual(client.publish([1, 2], to: "nobody"), 0)
    }
  }
}
