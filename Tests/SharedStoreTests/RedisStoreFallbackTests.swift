import Clocks
import Foundation
import Glibc
import Redis
import RedisSharedStore
import SharedStore
import Synchronization
import TestSupport
import Testing

/// What the Redis store does when Redis goes away, stalls or refuses: it answers "nothing shared",
/// logs one line per change and comes back by itself.
@Suite("RedisStore: fallback and recovery against a real redis-server", .serialized, .timeLimit(.minutes(3)))
struct RedisStoreFallbackTests {
  final class Lines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
  }

  static func store(_ server: RedisServerProcess, _ lines: Lines) async throws -> RedisStore {
    try await store(server.configuration(), lines)
  }

  /// Runs `body` with a fresh `redis-server` over `transport` and a store of it logging to its own
  /// lines, and shuts the store down afterwards.
  static func withStore(
    _ transport: RedisTransport, _ body: (RedisServerProcess, Lines, RedisStore) async throws -> Void
  ) async throws {
    let server = try await RedisServerProcess(transport)
    let lines = Lines()
    let store = try await Self.store(server, lines)
    defer { store.shutdown() }
    try await body(server, lines, store)
  }

  static func store(_ configuration: RedisConfiguration, _ lines: Lines) async throws -> RedisStore {
    var configuration = configuration
    configuration.commandTimeout = .milliseconds(50)
    configuration.connectTimeout = .milliseconds(200)
    configuration.reconnectDelay = .milliseconds(50)
    return try await RedisStore.connect(
      configuration, retryInterval: 0.1, time: .system, log: { lines.append($0) })
  }

  @Test(arguments: RedisTransport.allCases) func aKilledServerIsOneLogLineAndARestartIsAnother(
    _ transport: RedisTransport
  ) async throws {
    try await Self.withStore(transport) { server, lines, store in
      await store.setValue([7], for: "k", keepFor: 60)
      await expectEqual(store.value(for: "k"), [7])

      await server.kill()
      for _ in 0..<50 {
        await expectEqual(store.value(for: "k"), nil)
        await expectEqual(store.lock("k", for: 1), .unshared)
        await expectEqual(store.reserve("search", now: 0), nil)
      }
      await expectEqual(store.status().available, false)
      expectTrue(lines.all.count == 1 && lines.all.first?.hasPrefix("redis: unavailable") == true)

      try await server.restart()
      let recovered = await eventually(poll: .milliseconds(20)) {
        await store.setValue([8], for: "k", keepFor: 60)
        return await store.value(for: "k") == [8]
      }
      expectTrue(recovered)
      expectTrue(await store.status().available)
      expectTrue(lines.all.count == 2 && lines.all.last?.hasPrefix("redis: available again") == true)
      await server.stop()
    }
  }

  @Test(arguments: RedisTransport.allCases) func aStalledServerTimesOutAndFallsBack(
    _ transport: RedisTransport
  ) async throws {
    try await Self.withStore(transport) { server, lines, store in
      let pid = try #require(server.pid)
      kill(pid, SIGSTOP)
      // Two commands time out in a row: an outage.
      await expectEqual(store.value(for: "k"), nil)
      await expectEqual(store.value(for: "k"), nil)
      await expectEqual(store.status().available, false)
      expectEqual(lines.all.first?.contains("timeout"), true)
      kill(pid, SIGCONT)
      expectTrue(await eventually(poll: .milliseconds(20)) { await store.status().available })
      await server.stop()
    }
  }

  @Test(arguments: RedisTransport.allCases) func aWrongPasswordStopsStartupAndAnUnreachableServerDoesNot(
    _ transport: RedisTransport
  ) async throws {
    let server = try await RedisServerProcess(transport, password: "secret-1")
    var wrong = try server.configuration()
    wrong.password = "nope"
    await #expect(throws: RedisError.self) {
      _ = try await Self.store(wrong, Lines())
    }
    let lines = Lines()
    var unreachable = try server.configuration()
    unreachable.port = try ProcessRunner.freeLoopbackPort()
    let store = try await Self.store(unreachable, lines)
    defer { store.shutdown() }
    await expectEqual(store.status().available, false)
    expectTrue(lines.all.count == 1 && lines.all[0].contains("unavailable at startup"))
    await server.stop()
  }

  /// A wrong CA, an expired or misnamed certificate, or a plain-text server behind a rediss:// URL:
  /// the store starts on local state with a line that says what is wrong, keeps probing (each probe
  /// refused the same way, never in plain text), and shares nothing.
  @Test func aServerTheClientCannotTrustLeavesTheStoreOnLocalStateWithAClearLine() async throws {
    let certificates = try await TestCertificates.shared()
    let expired = try await RedisServerProcess(
      tls: RedisTLSOptions(certificates: certificates, serverCertificate: .expired))
    let misnamed = try await RedisServerProcess(
      tls: RedisTLSOptions(certificates: certificates, serverCertificate: .wrongHost))
    let trusted = try await RedisServerProcess(.tls)
    let otherCA = try trusted.configuration().trusting(certificates.otherCA)
    let plain = try await RedisServerProcess()
    let plainAsTLS = try RedisConfiguration(url: "rediss://127.0.0.1:\(plain.port)/0").trusting(
      certificates.ca)
    let cases: [(RedisConfiguration, String)] = [
      (try expired.configuration(), "certificate has expired"),
      (try misnamed.configuration(), "IP address mismatch"),
      (otherCA, "server certificate refused"),
      (plainAsTLS, "TLS"),
    ]
    for (configuration, words) in cases {
      let lines = Lines()
      let store = try await Self.store(configuration, lines)
      defer { store.shutdown() }
      await store.setValue([1], for: "k", keepFor: 60)
      await expectEqual(store.value(for: "k"), nil)
      await expectEqual(store.lock("k", for: 1), .unshared)
      let status = await store.status()
      expectEqual(status.available, false)
      expectEqual(lines.all.first?.contains("unavailable at startup"), true)
      expectEqual(lines.all.first?.contains(words), true, "\(lines.all)")
    }
    let check = try RedisClient(try plain.configuration(), time: .system)
    defer { check.shutdown() }
    try await expectEqual(check.execute(["DBSIZE"]), .integer(0), "nothing reached the plain server")
  }
}
