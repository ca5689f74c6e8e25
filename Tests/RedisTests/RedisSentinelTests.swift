import Clocks
import Redis
import Synchronization
import TestSupport
import Testing

/// The client against real `redis-sentinel` processes: one master, one replica, three sentinels,
/// in plain text and over TLS with passwords on both the data servers and the sentinels.
@Suite(.serialized, .timeLimit(.minutes(3))) struct RedisSentinelTests {
  static func topology(_ transport: RedisTransport) async throws -> SentinelTopology {
    try await SentinelTopology.start(transport, password: "data-pw", sentinelPassword: "sentinel-pw")
  }

  static func client(_ topology: SentinelTopology) throws -> RedisClient {
    var configuration = try topology.configuration().relaxed()
    configuration.reconnectDelay = .milliseconds(20)
    return try RedisClient(configuration, time: .system)
  }

  @Test(arguments: RedisTransport.allCases) func findsTheMasterThroughTheSentinelsAndFollowsAKilledOne(
    _ transport: RedisTransport
  ) async throws {
    let topology = try await Self.topology(transport)
    let client = try Self.client(topology)
    defer { client.shutdown() }
    try await client.set("before", [1])
    expectEqual(client.telemetry.snapshot.role, .master)
    expectEqual(client.telemetry.snapshot.server, "127.0.0.1:\(topology.master.port)")
    // Replication is asynchronous: WAIT is how a writer knows the replica has it.
    try await expectEqual(client.execute(["WAIT", 1, 5000]), .integer(1))

    await topology.master.kill()
    // Calls fail while the sentinels agree the master is down and promote the replica; then the
    // client follows, told by +switch-master.
    let followed = await eventually(poll: .milliseconds(50)) {
      (try? await client.set("after", [2])) != nil
    }
    expectTrue(followed)
    try await expectEqual(topology.masterPort(), topology.replica.port)
    let seen = client.telemetry.snapshot
    expectEqual(seen.failovers, 1)
    expectEqual(seen.server, "127.0.0.1:\(topology.replica.port)")
    expectEqual(seen.role, .master)
    try await expectEqual(client.get("before"), [1], "the replicated write survived the failover")
    await topology.stop()
  }

  @Test func aDemotedMasterAnsweringReadOnlySendsTheCallToTheNewOne() async throws {
    // Two real servers and a stand-in sentinel whose answer the test sets: a demoted master that
    // keeps its client connections (as REPLICAOF does) is the case a READONLY answer reveals.
    let first = try await RedisServerProcess()
    let second = try await RedisServerProcess(extraArguments: [
      "--replicaof", "127.0.0.1", String(first.port),
    ])
    let named = Mutex(first.port)
    let sentinel = try FakeRedisServer(replying: {
      let port = String(named.withLock { $0 })
      return Array("*2\r\n$9\r\n127.0.0.1\r\n$\(port.utf8.count)\r\n\(port)\r\n".utf8)
    })
    defer { sentinel.stop() }
    var configuration = RedisConfiguration().relaxed()
    configuration.sentinel = try RedisSentinelConfiguration(
      sentinels: "127.0.0.1:\(sentinel.port)", masterName: "reposcroll")
    let client = try RedisClient(configuration.pool(1), time: .system)
    defer { client.shutdown() }
    try await client.set("k", [1])
    expectEqual(client.telemetry.snapshot.server, "127.0.0.1:\(first.port)")

    // The operator's failover: the second server becomes the master, the first its replica.
    let admin = try RedisClient(try RedisConfiguration.relaxed(second), time: .system)
    defer { admin.shutdown() }
    try await admin.execute(["REPLICAOF", "NO", "ONE"])
    let demote = try RedisClient(try RedisConfiguration.relaxed(first), time: .system)
    defer { demote.shutdown() }
    try await demote.execute(["REPLICAOF", "127.0.0.1", RedisArgument(second.port)])
    named.withLock { $0 = second.port }

    // The pooled connection to the first answers READONLY; the call is sent again to the master the
    // sentinel names now, and the caller sees only success.
    try await client.set("k", [2])
    try await expectEqual(admin.get("k"), [2])
    let seen = client.telemetry.snapshot
    expectEqual(seen.server, "127.0.0.1:\(second.port)")
    expectEqual(seen.failovers, 1)
    expectEqual(seen.role, .master)
    await first.stop()
    await second.stop()
  }

  @Test func theSwitchMasterAnnouncementAloneMovesTheClient() async throws {
    let topology = try await SentinelTopology.start(.plain)
    let client = try Self.client(topology)
    defer { client.shutdown() }
    try await client.set("k", [1])
    var configuration = try RedisConfiguration(url: "redis://127.0.0.1:\(topology.sentinelPorts[2])")
      .relaxed()
    configuration.asksRole = false
    let sentinel = try await RedisConnection.connect(configuration, time: .system)
    try await sentinel.execute(["SENTINEL", "FAILOVER", "reposcroll"])
    // No call from the client meanwhile: only its +switch-master subscription can tell it.
    try await waitUntil("the client follows the announcement", timeout: .seconds(30), poll: .milliseconds(20))
    {
      client.telemetry.snapshot.failovers == 1
    }
    expectEqual(client.telemetry.snapshot.server, "127.0.0.1:\(topology.replica.port)")
    try await client.set("k", [2])
    expectEqual(client.telemetry.snapshot.role, .master)
    await topology.stop()
  }

  @Test func noReachableSentinelIsAClearErrorAndAWrongSentinelPasswordIsAnAuthFailure() async throws {
    var configuration = RedisConfiguration().relaxed()
    let ports = try (0..<2).map { _ in try ProcessRunner.freeLoopbackPort() }
    configuration.sentinel = try RedisSentinelConfiguration(
      sentinels: ports.map { "127.0.0.1:\($0)" }.joined(separator: ","), masterName: "reposcroll")
    await #expect {
      try await RedisConnection.connect(configuration, time: .system)
    } throws: { error in
      guard let reason = RedisError.lostReason(of: error) else { return false }
      return reason.contains("no sentinel named the master reposcroll")
        && reason.contains("127.0.0.1:\(ports[1])")
    }
    let topology = try await SentinelTopology.start(.plain, sentinelPassword: "right")
    var wrong = try topology.configuration().relaxed()
    wrong.sentinel?.password = "wrong"
    await #expect {
      try await RedisConnection.connect(wrong, time: .system)
    } throws: { RedisError.authMessage(of: $0)?.hasPrefix("sentinels:") == true }
    await topology.stop()
  }
}
