// The Redis client, measured:
//   redis-bench PORT CLIENTS PIPELINE REQUESTS   throughput: REQUESTS SET and then REQUESTS GET commands
//                                                from CLIENTS concurrent tasks in pipelines of PIPELINE
//                                                commands, like `redis-benchmark -c CLIENTS -P PIPELINE
//                                                -n REQUESTS -t set,get`; prints ops/s for each.
//   redis-bench latency PORT REQUESTS            latency: one caller, one command at a time (SET, then
//                                                GET of a 100-byte value), as a request of the app does;
//                                                prints p50 and p99 in µs and CPU µs per command.
//   redis-bench large PORT MEGABYTES             one SET and one GET of a value of that size: ms each.
// With REDIS_BENCH_CA=ca.pem the server is reached over TLS (rediss://), trusting that CA.
import Clocks
import Foundation
import Glibc
import Redis
import TLS

let words = Array(CommandLine.arguments.dropFirst())
let mode = words.first.flatMap { Int($0) == nil ? $0 : nil }
let arguments = words.dropFirst(mode == nil ? 0 : 1).compactMap { Int($0) }
guard (mode != nil && arguments.count == 2) || (mode == nil && arguments.count == 4) else {
  print("usage: redis-bench PORT CLIENTS PIPELINE REQUESTS | redis-bench latency|large PORT N")
  exit(2)
}
let latencyMode = mode == "latency"
// The one clock of this program: the client's deadlines and the timings below.
let time = TimeSource.system

/// A configuration for 127.0.0.1:`port` with a pool of `size`, over TLS when REDIS_BENCH_CA names a CA.
func configuration(port: Int, pool size: Int) throws -> RedisConfiguration {
  let ca = ProcessInfo.processInfo.environment["REDIS_BENCH_CA"]
  var configuration = try RedisConfiguration(url: "\(ca == nil ? "redis" : "rediss")://127.0.0.1:\(port)/0")
  configuration.tls?.caFile = ca
  configuration.commandTimeout = .seconds(30)
  configuration.connectTimeout = .seconds(5)
  configuration.poolTimeout = .seconds(30)
  configuration.poolSize = size
  return configuration
}

/// This process's CPU time in µs (every thread, the client's I/O loop included).
func cpuMicros() -> Double {
  var spec = timespec()
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
  return Double(spec.tv_sec) * 1e6 + Double(spec.tv_nsec) / 1e3
}

if mode == "large" {
  let client = try RedisClient(configuration(port: arguments[0], pool: 1), time: time)
  let value = [UInt8](repeating: UInt8(ascii: "v"), count: arguments[1] << 20)
  try await client.ping()
  let start = time.monotonicNanoseconds()
  try await client.set("large", value)
  let middle = time.monotonicNanoseconds()
  let back = try await client.get("large")
  let end = time.monotonicNanoseconds()
  guard back == value else { fatalError("the value came back different") }
  print(
    String(
      format: "%d MiB: SET %.1f ms, GET %.1f ms", arguments[1], Double(middle - start) / 1e6,
      Double(end - middle) / 1e6))
  client.shutdown()
  exit(0)
}

if latencyMode {
  let (port, requests) = (arguments[0], arguments[1])
  let client = try RedisClient(configuration(port: port, pool: 1), time: time)
  let value = [UInt8](repeating: UInt8(ascii: "v"), count: 100)
  try await client.ping()
  for name in ["SET", "GET"] {
    var samples: [Double] = []
    samples.reserveCapacity(requests)
    let cpuStart = cpuMicros()
    for index in 0..<requests {
      let start = time.monotonicNanoseconds()
      if name == "SET" {
        try await client.set("latency:\(index % 1000)", value)
      } else {
        _ = try await client.get("latency:\(index % 1000)")
      }
      samples.append(Double(time.monotonicNanoseconds() - start) / 1000)
    }
    let cpu = (cpuMicros() - cpuStart) / Double(requests)
    samples.sort()
    let p50 = samples[samples.count / 2]
    let p99 = samples[min(samples.count - 1, samples.count * 99 / 100)]
    print(String(format: "%@: p50 %.1f µs, p99 %.1f µs, %.1f µs CPU per command", name, p50, p99, cpu))
  }
  client.shutdown()
  exit(0)
}

let (port, clients, depth, requests) = (arguments[0], arguments[1], arguments[2], arguments[3])
let client = try RedisClient(configuration(port: port, pool: clients), time: time)
let value = [UInt8](repeating: UInt8(ascii: "x"), count: 3)

/// Runs `requests` commands made by `make`, `depth` at a time per call, from `clients` tasks; ops/s.
func measure(_ make: @escaping @Sendable (Int) -> RedisCommand) async throws -> Double {
  let batches = (requests + depth - 1) / depth
  let start = time.monotonicMilliseconds()
  try await withThrowingTaskGroup(of: Void.self) { group in
    for worker in 0..<clients {
      group.addTask {
        var batch = worker
        while batch < batches {
          let commands = (0..<depth).map { make(batch * depth + $0) }
          _ = try await client.pipeline(commands)
          batch += clients
        }
      }
    }
    try await group.waitForAll()
  }
  let elapsed = max(1, time.monotonicMilliseconds() - start)
  return Double(batches * depth) * 1000 / Double(elapsed)
}

let set = try await measure { RedisCommand("SET", RedisArgument("key:\($0 % 10_000)"), .bytes(value)) }
let get = try await measure { RedisCommand("GET", RedisArgument("key:\($0 % 10_000)")) }
print("SET: \(Int(set)) requests per second")
print("GET: \(Int(get)) requests per second")
client.shutdown()
