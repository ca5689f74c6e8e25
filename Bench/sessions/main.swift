import Foundation
// Session lookup cost: `session-bench [REDIS_PORT] [LOOKUPS]` creates 1,000 sessions and looks them up
// LOOKUPS times (default 200,000 in memory, a tenth in Redis) from one task, one at a time, as a request
// does, and prints µs per lookup. Each store is measured beside a reference in the same run: in memory,
// a dictionary lookup of the same sealed bytes (so the figure shows the cost of parsing, hashing the id
// and opening the seal); in Redis, a plain GET of a value of the same size (the round trip every
// lookup needs anyway).
import Glibc
import Redis
import Sessions

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let redisPort = arguments.first
let lookups = arguments.count > 1 ? arguments[1] : 200_000
let token = "gho_" + String(repeating: "x", count: 36)
let now: @Sendable () -> Int = { Int(Date().timeIntervalSince1970) }

/// Microseconds per call of `body`, run `count` times.
func perCall(_ count: Int, _ body: (Int) async throws -> Void) async rethrows -> Double {
  let clock = ContinuousClock()
  let start = clock.now
  for index in 0..<count { try await body(index) }
  let elapsed = clock.now - start
  let (seconds, attoseconds) = elapsed.components
  return (Double(seconds) * 1e6 + Double(attoseconds) / 1e12) / Double(max(1, count))
}

func measure(_ book: SessionBook, count: Int) async throws -> Double {
  var cookies: [String] = []
  for n in 0..<1000 {
    cookies.append(
      try await book.create(userID: n, login: "reader\(n)", token: token, seesPrivate: false).id.cookieValue)
  }
  var found = 0
  let micros = await perCall(count) { index in
    if case .found = await book.lookup(cookieValue: cookies[index % cookies.count][...]) { found += 1 }
  }
  guard found == count else { fatalError("only \(found) of \(count) lookups found their session") }
  return micros
}

let memory = MemorySessionStore(now: now)
let memoryBook = SessionBook(key: .random(), store: memory, now: now)
let inMemory = try await measure(memoryBook, count: lookups)
let sealed = memory.dump
var table: [String: [UInt8]] = [:]
for (name, bytes) in sealed { table[name] = bytes }
let names = sealed.map(\.name)
var hits = 0
let dictionary = await perCall(lookups) { index in if table[names[index % names.count]] != nil { hits += 1 } }
print(
  String(
    format: "memory: %.2f µs per lookup (a dictionary lookup of the sealed bytes: %.3f µs)", inMemory,
    dictionary))

if let redisPort {
  let configuration = RedisConfiguration(port: redisPort, commandTimeout: .seconds(5))
  let store = try RedisSessionStore(
    configuration: configuration, namespace: "bench:", clock: { Date().timeIntervalSince1970 },
    log: { print($0) })
  let book = SessionBook(key: .random(), store: store, now: now)
  let count = max(1, lookups / 10)
  let inRedis = try await measure(book, count: count)
  let client = try RedisClient(configuration)
  let value = sealed.first?.sealed ?? []
  try await client.set("bench:reference", value)
  let get = try await perCall(count) { _ in _ = try await client.get("bench:reference") }
  print(
    String(
      format: "redis: %.1f µs per lookup (a plain GET of the same %d bytes: %.1f µs)", inRedis, value.count,
      get))
  store.shutdown()
  client.shutdown()
}
