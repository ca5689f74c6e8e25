// Throughput of the Redis client: `redis-bench PORT CLIENTS PIPELINE REQUESTS` runs REQUESTS SET and then
// REQUESTS GET commands from CLIENTS concurrent tasks in pipelines of PIPELINE commands, like
// `redis-benchmark -c CLIENTS -P PIPELINE -n REQUESTS -t set,get`, and prints ops/s for each.
import Clocks
import Glibc
import Redis

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
guard arguments.count == 4 else {
  print("usage: redis-bench PORT CLIENTS PIPELINE REQUESTS")
  exit(2)
}
let (port, clients, depth, requests) = (arguments[0], arguments[1], arguments[2], arguments[3])
var configuration = RedisConfiguration(port: port, commandTimeout: .seconds(30))
configuration.poolSize = clients
configuration.poolTimeout = .seconds(30)
let client = try RedisClient(configuration)
let value = [UInt8](repeating: UInt8(ascii: "x"), count: 3)

/// Runs `requests` commands made by `make`, `depth` at a time per call, from `clients` tasks; ops/s.
func measure(_ make: @escaping @Sendable (Int) -> RedisCommand) async throws -> Double {
  let batches = (requests + depth - 1) / depth
  let start = TimeSource.system.monotonicMilliseconds()
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
  let elapsed = max(1, TimeSource.system.monotonicMilliseconds() - start)
  return Double(batches * depth) * 1000 / Double(elapsed)
}

let set = try await measure { RedisCommand("SET", RedisArgument("key:\($0 % 10_000)"), .bytes(value)) }
let get = try await measure { RedisCommand("GET", RedisArgument("key:\($0 % 10_000)")) }
print("SET: \(Int(set)) requests per second")
print("GET: \(Int(get)) requests per second")
client.shutdown()
