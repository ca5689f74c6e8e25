// Session lookup cost: `session-bench [REDIS_PORT] [LOOKUPS]` creates 1,000 sessions and looks them up
// LOOKUPS times (default 200,000 in memory, a tenth in Redis) from one task, one at a time, as a request
// does, and prints µs per lookup, in process CPU time (every thread, the Redis I/O loop included) and in
// wall-clock time. Each store is measured beside a reference in the same run: in memory, a dictionary
// lookup of the same sealed bytes (so the difference is parsing the id, hashing it and opening the
// seal); in Redis, a plain GET of a value of the same size (the round trip any lookup needs).
import Clocks
import Credentials
import Foundation
import GitHub
import Glibc
import Redis
import Sessions

// The one clock of this program.
let time = TimeSource.system

// `session-bench wait MASTER_PORT WRITES`: what waiting for a replica costs a session write. The master
// at MASTER_PORT must have a replica; WRITES sign-ins (a session save each) are timed with
// `WAIT 1 100` after each save and without, alternating in blocks, and the µs per sign-in printed.
if CommandLine.arguments.dropFirst().first == "wait" {
  let numbers = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
  guard numbers.count == 2 else {
    print("usage: session-bench wait MASTER_PORT WRITES")
    exit(2)
  }
  let configuration = RedisConfiguration(port: numbers[0], commandTimeout: .seconds(5))
  var books: [(String, SessionBook)] = []
  for (label, wait) in [("no wait", nil), ("WAIT 1 100", Duration.milliseconds(100))] as [(String, Duration?)]
  {
    let store = try RedisSessionStore(
      configuration: configuration, namespace: "bench-wait:", replicaWait: wait,
      time: time, log: { print($0) })
    books.append((label, SessionBook(key: .random(), store: store, time: time)))
  }
  var totals = [Double](repeating: 0, count: books.count)
  var samples = [[Double]](repeating: [], count: books.count)
  let block = 100
  for round in 0..<max(1, numbers[1] / block / books.count) {
    for (index, (_, book)) in books.enumerated() {
      for n in 0..<block {
        let start = time.monotonicNanoseconds()
        _ = try await book.create(userID: round * block + n, login: "r", token: "gho_x", access: .publicOnly)
        let micros = Double(time.monotonicNanoseconds() - start) / 1000
        totals[index] += micros
        samples[index].append(micros)
      }
    }
  }
  for (index, (label, _)) in books.enumerated() {
    let sorted = samples[index].sorted()
    print(
      String(
        format: "%@: %.0f µs mean, p50 %.0f µs, p99 %.0f µs per sign-in's session write (%d writes)", label,
        totals[index] / Double(sorted.count), sorted[sorted.count / 2], sorted[sorted.count * 99 / 100],
        sorted.count))
  }
  exit(0)
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let redisPort = arguments.first
let lookups = arguments.count > 1 ? arguments[1] : 200_000
let token = "gho_" + String(repeating: "x", count: 36)

/// This process's CPU time in µs.
func cpuMicros() -> Double {
  var spec = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
  return Double(spec.tv_sec) * 1e6 + Double(spec.tv_nsec) / 1e3
}

/// Wall-clock and CPU µs per call of `body`, run `count` times. On a shared machine the CPU figure is
/// the one to compare: the wall clock also counts the time spent waiting for a core.
func perCall(_ count: Int, _ body: (Int) async throws -> Void) async rethrows -> (wall: Double, cpu: Double) {
  let start = time.monotonicNanoseconds()
  let cpuStart = cpuMicros()
  for index in 0..<count { try await body(index) }
  let cpu = cpuMicros() - cpuStart
  let wall = Double(time.monotonicNanoseconds() - start) / 1e3
  return (wall / Double(max(1, count)), cpu / Double(max(1, count)))
}

func show(_ figures: (wall: Double, cpu: Double)) -> String {
  String(format: "%.2f µs CPU, %.2f µs wall", figures.cpu, figures.wall)
}

func measure(_ book: SessionBook, count: Int) async throws -> (wall: Double, cpu: Double) {
  var cookies: [String] = []
  for n in 0..<1000 {
    cookies.append(
      try await book.create(userID: n, login: "reader\(n)", token: token, access: .publicOnly).id.cookieValue)
  }
  var found = 0
  let figures = await perCall(count) { index in
    if case .found = await book.lookup(cookieValue: cookies[index % cookies.count][...]) { found += 1 }
  }
  guard found == count else { fatalError("only \(found) of \(count) lookups found their session") }
  return figures
}

let memory = MemorySessionStore(time: time)
let inMemory = try await measure(SessionBook(key: .random(), store: memory, time: time), count: lookups)
/// The in-memory reference: a dictionary lookup of the same sealed bytes, from locals (top-level
/// variables belong to the main actor, and reaching them from a task would measure actor hops).
func dictionaryReference(_ sealed: [(name: String, sealed: [UInt8])], count: Int) async -> (
  wall: Double, cpu: Double
) {
  var table: [String: [UInt8]] = [:]
  for (name, bytes) in sealed { table[name] = bytes }
  let names = sealed.map(\.name)
  var hits = 0
  let figures = await perCall(count) { index in if table[names[index % names.count]] != nil { hits += 1 } }
  precondition(hits == count)
  return figures
}
let dictionary = await dictionaryReference(memory.dump, count: lookups)
print("memory: \(show(inMemory)) per lookup; a dictionary lookup of the sealed bytes: \(show(dictionary))")

if let redisPort {
  let configuration = RedisConfiguration(port: redisPort, commandTimeout: .seconds(5))
  let store = try RedisSessionStore(
    configuration: configuration, namespace: "bench:", time: time,
    log: { print($0) })
  let count = max(1, lookups / 10)
  let inRedis = try await measure(SessionBook(key: .random(), store: store, time: time), count: count)
  let client = try RedisClient(configuration, time: time)
  let value = memory.dump.first?.sealed ?? []
  try await client.set("bench:reference", value)
  let get = try await perCall(count) { _ in _ = try await client.get("bench:reference") }
  print("redis: \(show(inRedis)) per lookup; a plain GET of the same \(value.count) bytes: \(show(get))")
  store.shutdown()
  client.shutdown()
}
