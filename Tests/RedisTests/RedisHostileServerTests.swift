import Clocks
import Glibc
import Redis
import Sockets
import Synchronization
import TestSupport
import Testing

/// The client against a fake server that misbehaves in one way each.
@Suite(.timeLimit(.minutes(3))) struct RedisHostileServerTests {
  static func configuration(_ server: FakeRedisServer) -> RedisConfiguration {
    var configuration = RedisConfiguration(port: server.port).relaxed()
    // The fakes answer the first command they get, which must be the test's.
    configuration.asksRole = false
    configuration.commandTimeout = .seconds(2)
    configuration.reconnectDelay = .milliseconds(10)
    return configuration
  }

  @Test func garbageIsAProtocolViolation() async throws {
    let server = try FakeRedisServer(reply: Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8))
    defer { server.stop() }
    let connection = try await RedisConnection.connect(Self.configuration(server), time: .system)
    await #expect(throws: RedisError.protocolViolation(.unknownType(UInt8(ascii: "H")))) {
      try await connection.ping()
    }
    expectTrue(!connection.isOpen)
    // The connection stays failed with the same error.
    await #expect(throws: RedisError.protocolViolation(.unknownType(UInt8(ascii: "H")))) {
      try await connection.ping()
    }
  }

  @Test func aHugeAnnouncedValueIsRefusedBeforeItArrives() async throws {
    let server = try FakeRedisServer(reply: Array("$9999999999\r\n".utf8))
    defer { server.stop() }
    let client = try RedisClient(Self.configuration(server), time: .system)
    defer { client.shutdown() }
    await #expect(throws: RedisError.protocolViolation(.bulkTooLong(length: 9_999_999_999, limit: 64 << 20)))
    {
      try await client.get("k")
    }
  }

  @Test func anUnaskedReplyClosesTheConnection() async throws {
    let server = try FakeRedisServer(reply: Array("+hello\r\n".utf8), greet: true)
    defer { server.stop() }
    let connection = try await RedisConnection.connect(Self.configuration(server), time: .system)
    // The greeting arrives with nobody waiting for it.
    try await waitUntil("the connection closes", poll: .milliseconds(5)) { !connection.isOpen }
    expectTrue(!connection.isOpen)
    await #expect(throws: RedisError.protocolViolation(.unsolicitedReply)) { try await connection.ping() }
  }

  @Test func aServerThatNeverAnswersTimesOut() async throws {
    let server = try FakeRedisServer(reply: [])
    defer { server.stop() }
    let client = try RedisClient(Self.configuration(server), time: .system)
    defer { client.shutdown() }
    await #expect(throws: RedisError.timeout(.command)) { try await client.ping() }
  }

  /// Deadlines are kept on the clock the client was given: an hour's command timeout passes when the
  /// test moves that clock by an hour, not in real time.
  @Test func aCommandTimesOutOnTheInjectedClock() async throws {
    let server = try FakeRedisServer(reply: [])
    defer { server.stop() }
    var configuration = Self.configuration(server)
    configuration.commandTimeout = .seconds(3600)
    let clock = ManualClock()
    let connection = try await RedisConnection.connect(configuration, time: clock.time)
    let outcome = Mutex<RedisError?>(nil)
    let ping = Task {
      do throws(RedisError) {
        try await connection.ping()
      } catch {
        outcome.withLock { $0 = error }
      }
    }
    // An hour at a time: the deadline is an hour after the ping was sent, whenever that was.
    let failed = await eventually(within: .seconds(30), poll: .milliseconds(20)) {
      clock.advance(3600)
      return outcome.withLock { $0 } != nil
    }
    await ping.value
    expectTrue(failed)
    expectEqual(outcome.withLock { $0 }, .timeout(.command))
  }

  @Test func aServerThatHangsUpMidReplyIsConnectionLost() async throws {
    let server = try FakeRedisServer(reply: Array("$10\r\nabc".utf8), closeAfterReply: true)
    defer { server.stop() }
    let client = try RedisClient(Self.configuration(server), time: .system)
    defer { client.shutdown() }
    await #expect(throws: RedisError.connectionLost("closed by the server")) { try await client.get("k") }
  }

  @Test func nobodyListeningIsConnectionLostAndThenFailsFast() async throws {
    // A port held by a socket that never listens: connects are refused, and no other test can take it.
    let (fd, port) = try SocketAddressForTests.boundWithoutListening()
    defer { Socket.close(fd) }
    var configuration = RedisConfiguration(port: port)
    configuration.reconnectDelay = .seconds(30)
    let client = try RedisClient(configuration, time: .system)
    defer { client.shutdown() }
    await #expect {
      try await client.ping()
    } throws: { RedisError.lostReason(of: $0)?.contains("refused") == true }
    // Within the reconnect delay the same error comes back without another attempt.
    await #expect {
      try await client.ping()
    } throws: { RedisError.lostReason(of: $0)?.contains("refused") == true }
    expectEqual(client.statistics.open, 0)
  }
}

/// Connecting to a listener whose accept queue is full: the kernel drops the SYN, so the TCP connect
/// itself never completes.
@Suite(.timeLimit(.minutes(3))) struct RedisConnectTimeoutTests {
  @Test func aConnectThatNeverCompletesTimesOut() async throws {
    let (listener, port) = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 0)
    defer { Socket.close(listener) }
    let address = SocketAddressForTests(port: port)
    var fillers: [Int32] = []
    defer { for fd in fillers { Socket.close(fd) } }
    // Fill the accept queue (nobody accepts) so that later SYNs are dropped.
    for _ in 0..<4 { fillers.append(address.connectNonblocking()) }
    // Real time: the kernel completes the fillers' handshakes on its own, with nothing to await.
    try await Task.sleep(for: .milliseconds(100))
    var configuration = RedisConfiguration(port: port)
    configuration.connectTimeout = .milliseconds(200)
    await #expect(throws: RedisError.timeout(.connect)) {
      try await RedisConnection.connect(configuration, time: .system)
    }
  }
}
