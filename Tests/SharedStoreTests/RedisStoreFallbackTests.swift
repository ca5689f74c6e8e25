import Foundation
import Glibc
import Redis
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

  static func store(_ url: String, _ lines: Lines) async throws -> RedisStore {
    var configuration = try RedisConfiguration(url: url)
    configuration.commandTimeout = .milliseconds(50)
    configuration.connectTimeout = .milliseconds(200)
    configuration.reconnectDelay = .milliseconds(50)
    return try await RedisStore.connect(
      configuration, retryInterval: 0.1, now: { Date().timeIntervalSince1970 }, log: { lines.append($0) })
  }

  @Test func aKilledServerIsOneLogLineAndARestartIsAnother() async throws {
    let server = try await RedisServerProcess()
    let lines = Lines()
    let store = try await Self.store(server.url(), lines)
    defer { store.shutdown() }
    await store.setValue([7], for: "k", keepFor: 60)
    #expect(await store.value(for: "k") == [7])

    await server.kill()
    for _ in 0..<50 {
      #expect(await store.value(for: "k") == nil)
      #expect(await store.lock("k", for: 1) == .unshared)
      #expect(await store.reserve("search", now: 0) == nil)
    }
    #expect(await store.status().available == false)
    #expect(lines.all.count == 1 && lines.all.first?.hasPrefix("redis: unavailable") == true)

    try await server.restart()
    let recovered = await eventually(poll: .milliseconds(20)) {
      await store.setValue([8], for: "k", keepFor: 60)
      return await store.value(for: "k") == [8]
    }
    #expect(recovered)
    #expect(await store.status().available)
    #expect(lines.all.count == 2 && lines.all.last?.hasPrefix("redis: available again") == true)
    await server.stop()
  }

  @Test func aStalledServerTimesOutAndFallsBack() async throws {
    let server = try await RedisServerProcess()
    let lines = Lines()
    let store = try await Self.store(server.url(), lines)
    defer { store.shutdown() }
    let pid = try #require(server.pid)
    kill(pid, SIGSTOP)
    // Two commands time out in a row: an outage.
    #expect(await store.value(for: "k") == nil)
    #expect(await store.value(for: "k") == nil)
    #expect(await store.status().available == false)
    #expect(lines.all.first?.contains("timeout") == true)
    kill(pid, SIGCONT)
    #expect(await eventually(poll: .milliseconds(20)) { await store.status().available })
    await server.stop()
  }

  @Test func aWrongPasswordStopsStartupAndAnUnreachableServerDoesNot() async throws {
    let server = try await RedisServerProcess(password: "secret-1")
    await #expect(throws: RedisError.self) {
      _ = try await Self.store("redis://:nope@127.0.0.1:\(server.port)/0", Lines())
    }
    let lines = Lines()
    let port = try ProcessRunner.freeLoopbackPort()
    let store = try await Self.store("redis://127.0.0.1:\(port)/0", lines)
    defer { store.shutdown() }
    #expect(await store.status().available == false)
    #expect(lines.all.count == 1 && lines.all[0].contains("unavailable at startup"))
    await server.stop()
  }
}
