import Clocks
import Credentials
import Foundation
import GitHub
import Redis
import Synchronization
import TestSupport
import Testing

@testable import Sessions

@Suite("Sessions in a real redis-server", .serialized, .timeLimit(.minutes(3)))
struct RedisSessionStoreTests {
  static let token = "gho_RedisDumpMustNotShowThis0123456789"

  /// A server with persistence on (append-only file, fsync'd each write), so a restart keeps sessions.
  static func persistentServer(_ transport: RedisTransport = .plain) async throws -> RedisServerProcess {
    try await RedisServerProcess(
      transport, extraArguments: ["--appendonly", "yes", "--appendfsync", "always"])
  }

  static func store(
    _ server: RedisServerProcess, replicaWait: Duration? = nil,
    log: @escaping @Sendable (String) -> Void = { _ in }
  ) throws -> RedisSessionStore {
    var configuration = try server.configuration()
    configuration.commandTimeout = .seconds(2)
    configuration.connectTimeout = .seconds(2)
    configuration.reconnectDelay = .milliseconds(20)
    return try RedisSessionStore(
      configuration: configuration, retryInterval: 0.05, replicaWait: replicaWait,
      time: .system, log: log)
  }

  @Test(arguments: RedisTransport.allCases) func sessionsSurviveARedisRestartAndAnotherInstanceFindsThem(
    _ transport: RedisTransport
  ) async throws {
    let server = try await Self.persistentServer(transport)
    let key = SessionKey.random()
    let first = SessionBook(key: key, store: try Self.store(server), time: .system)
    let session = try await first.create(userID: 7, login: "mona", token: Self.token, access: .publicOnly)
    await server.stop()
    try await server.restart()
    // A second instance (its own client, the same key) finds the session after the restart.
    let second = SessionBook(key: key, store: try Self.store(server), time: .system)
    let found = try? await waitForValue("the session", poll: .milliseconds(50)) { () async -> Session? in
      await second.lookup(cookieValue: session.id.cookieValue[...]).session
    }
    expectEqual(found?.record.reader.login, "mona")
    expectEqual(found?.record.reader.token, Self.token)
    // Signing out through the first instance ends it for the second.
    try await first.end(session.id)
    await expectEqual(
      second.lookup(cookieValue: session.id.cookieValue[...]).outcome, .ended,
      "a signed-out session was still found")
    await server.stop()
  }

  @Test func aRedisDumpHoldsNoTokenNoLoginAndNoSessionID() async throws {
    let server = try await Self.persistentServer()
    let store = try Self.store(server)
    let book = SessionBook(key: .random(), store: store, time: .system)
    var ids: [String] = []
    for n in 0..<5 {
      let s = try await book.create(
        userID: n, login: "reader\(n)", token: Self.token + "\(n)", access: n == 0 ? .repoScope : .publicOnly)
      ids.append(s.id.cookieValue)
    }
    let client = try RedisClient(try server.configuration(), time: .system)
    defer { client.shutdown() }
    // Every key and value, as a reader of the live server sees them: 5 sessions, 5 accounts' indexes
    // and the index of all sessions.
    let keys = try await client.execute(["KEYS", "*"]).array?.compactMap { $0.bytes } ?? []
    expectEqual(keys.count, 11)
    var everything: [UInt8] = []
    for key in keys {
      everything += key
      let type = try await client.execute(["TYPE", .bytes(key)]).string
      if type == "zset" {
        let members = try await client.execute(["ZRANGE", .bytes(key), "0", "-1"]).array ?? []
        for member in members { everything += member.bytes ?? [] }
      } else {
        everything += try await client.get(String(decoding: key, as: UTF8.self)) ?? []
      }
      let ttl = try await client.execute(["TTL", .bytes(key)]).integer ?? -1
      let name = String(decoding: key, as: UTF8.self)
      if name.hasSuffix(":sessions") {
        expectEqual(ttl, -1, "the index of all sessions is kept")
      } else {
        expectTrue(ttl > 0 && ttl <= 37 * 86_400, "session and account keys expire")
      }
      // Accounts are keyed hashes, not user ids.
      if name.contains("session-account:") { expectTrue(!(0..<5).contains { name.hasSuffix(":\($0)") }) }
    }
    // And the files on disk: an RDB snapshot and the append-only file.
    let onDisk = try await client.persistedBytes()
    expectTrue(onDisk.count > 100, "the dump files were read")
    for blob in [everything, onDisk] {
      expectTrue(!contains(blob, Array(Self.token.utf8)), "a token is in the dump")
      expectTrue(!contains(blob, Array("reader1".utf8)), "a login is in the dump")
      for id in ids { expectTrue(!contains(blob, Array(id.utf8)), "a session id is in the dump") }
    }
    await server.stop()
  }

  @Test(arguments: RedisTransport.allCases) func redisDownIsUnavailableNotSignedOut(
    _ transport: RedisTransport
  ) async throws {
    let server = try await RedisServerProcess(transport)
    let lines = Mutex<[String]>([])
    let book = SessionBook(
      key: .random(), store: try Self.store(server, log: { line in lines.withLock { $0.append(line) } }),
      time: .system)
    let session = try await book.create(userID: 1, login: "a", token: Self.token, access: .publicOnly)
    await server.kill()
    for _ in 0..<3 {
      await expectEqual(
        book.lookup(cookieValue: session.id.cookieValue[...]).outcome, .unavailable,
        "Redis down was not reported as unavailable")
    }
    expectTrue(lines.withLock { $0.contains { $0.contains("sessions unavailable") } })
    expectTrue(!lines.withLock { $0.joined() }.contains(Self.token))
  }

  /// With a replica, a session write returns once the replica has it; with none answering, the
  /// write still counts and one line says sessions may be lost in a failover.
  @Test func sessionWritesWaitForAReplicaAndSayWhenNoneAnswers() async throws {
    let master = try await RedisServerProcess()
    let replica = try await RedisServerProcess(extraArguments: [
      "--replicaof", "127.0.0.1", String(master.port),
    ])
    let lines = Mutex<[String]>([])
    let store = try Self.store(master, replicaWait: .milliseconds(2000)) { line in
      lines.withLock { $0.append(line) }
    }
    let book = SessionBook(key: .random(), store: store, time: .system)
    let admin = try RedisClient(try replica.configuration(), time: .system)
    defer { admin.shutdown() }
    try await waitUntil("the replica is in sync", timeout: .seconds(20), poll: .milliseconds(50)) {
      let info = try await admin.execute(["INFO", "replication"]).string ?? ""
      return info.contains("master_link_status:up")
    }
    let session = try await book.create(userID: 1, login: "a", token: Self.token, access: .publicOnly)
    // Read straight from the replica: the write was on it before `create` returned.
    expectTrue(try await admin.get(store.redisKey(book.storeName(session.id))) != nil)
    expectTrue(lines.withLock { $0.isEmpty })
    // A sign-out is replicated the same way, so a failover cannot bring the session back.
    try await book.end(session.id)
    try await expectEqual(admin.get(store.redisKey(book.storeName(session.id))), nil)
    // Both writes asked the master to wait for the replica (replication on loopback is fast enough to
    // look synchronous without it, so the command count is what proves the wait).
    let onMaster = try RedisClient(try master.configuration(), time: .system)
    defer { onMaster.shutdown() }
    let stats = try await onMaster.execute(["INFO", "commandstats"]).string ?? ""
    expectTrue(stats.contains("cmdstat_wait:calls=2,"), "\(stats)")

    await replica.stop()
    let alone = try await book.create(userID: 2, login: "b", token: Self.token, access: .publicOnly)
    expectTrue(await book.lookup(cookieValue: alone.id.cookieValue[...]).session != nil, "still signed in")
    expectTrue(lines.withLock { $0.count == 1 && $0[0].contains("may be lost if the master fails") })
    await master.stop()
  }
}
