import Clocks
import Redis
import TestSupport
import Testing

/// The client against a real `redis-server` on a loopback port.
@Suite(.timeLimit(.minutes(3))) struct RedisLiveTests {
  @Test(arguments: RedisTransport.allCases) func everyReplyType(_ transport: RedisTransport) async throws {
    try await RedisClient.withServer(transport) { server, client in
      try await expectEqual(client.execute(["PING"]), .simpleString("PONG"))
      try await client.set("k", Array("hello".utf8))
      try await expectEqual(client.get("k"), Array("hello".utf8))
      try await expectEqual(client.get("missing"), nil)
      try await expectEqual(client.execute(["INCRBY", "n", 41]), .integer(41))
      try await expectEqual(client.execute(["INCR", "n"]), .integer(42))
      try await expectEqual(client.execute(["RPUSH", "list", "a", "b", "c"]), .integer(3))
      try await expectEqual(
        client.execute(["LRANGE", "list", 0, -1]),
        .array([
          .bulkString(Array("a".utf8)), .bulkString(Array("b".utf8)), .bulkString(Array("c".utf8)),
        ]))
      try await expectEqual(client.execute(["LRANGE", "nothing", 0, -1]), .array([]))
      // A blocking pop that times out answers with a null array.
      try await expectEqual(client.execute(["BLPOP", "nothing", "0.01"]), .null)
      // Nested arrays, straight from a script.
      let nested = try await client.execute(["EVAL", "return {1, {2, {'x'}}, {}}", 0])
      expectEqual(
        nested,
        .array([.integer(1), .array([.integer(2), .array([.bulkString(Array("x".utf8))])]), .array([])]))
      // An error reply, both thrown and kept inline in a pipeline.
      await #expect(
        throws: RedisError.server("WRONGTYPE Operation against a key holding the wrong kind of value")
      ) {
        try await client.execute(["GET", "list"])
      }
      let mixed = try await client.pipeline([RedisCommand("GET", "list"), RedisCommand("GET", "k")])
      expectEqual(mixed.first?.errorMessage?.hasPrefix("WRONGTYPE"), true)
      expectEqual(mixed.last, .bulkString(Array("hello".utf8)))
      // Binary-safe values.
      let binary: [UInt8] = [0, 13, 10, 255, 36, 42]
      try await client.set("bin", binary)
      try await expectEqual(client.get("bin"), binary)
    }
  }

  @Test(arguments: RedisTransport.allCases) func selectsTheDatabaseFromTheURL(_ transport: RedisTransport)
    async throws
  {
    let server = try await RedisServerProcess(transport)
    let db3 = try RedisClient(try RedisConfiguration.relaxed(server, database: 3), time: .system)
    defer { db3.shutdown() }
    let db0 = try RedisClient(try RedisConfiguration.relaxed(server), time: .system)
    defer { db0.shutdown() }
    try await db3.set("where", Array("three".utf8))
    try await expectEqual(db0.get("where"), nil)
    try await expectEqual(db3.get("where"), Array("three".utf8))
  }

  @Test(arguments: RedisTransport.allCases) func authenticatesWithTheRightPasswordAndRejectsTheWrongOne(
    _ transport: RedisTransport
  ) async throws {
    let server = try await RedisServerProcess(transport, password: "s3cret:/@")
    let right = try RedisConfiguration.relaxed(server)
    expectEqual(right.password, "s3cret:/@")
    let client = try RedisClient(right, time: .system)
    defer { client.shutdown() }
    try await client.ping()
    // The same password through a percent-encoded URL.
    let scheme = transport == .tls ? "rediss" : "redis"
    var fromURL = try RedisConfiguration(url: "\(scheme)://:s3cret%3A%2F%40@127.0.0.1:\(server.port)/0")
      .relaxed()
    expectEqual(fromURL.password, "s3cret:/@")
    fromURL.tls = right.tls
    try await RedisConnection.connect(fromURL, time: .system).ping()

    var wrong = right
    wrong.password = "nope"
    await #expect {
      try await RedisConnection.connect(wrong, time: .system)
    } throws: { RedisError.authMessage(of: $0)?.contains("WRONGPASS") == true }
    // No password at all: the first command says so.
    var withoutPassword = right
    withoutPassword.password = nil
    let anonymous = try RedisClient(withoutPassword, time: .system)
    defer { anonymous.shutdown() }
    await #expect {
      try await anonymous.ping()
    } throws: { RedisError.authMessage(of: $0)?.hasPrefix("NOAUTH") == true }
  }
}
