import Clocks
import Redis
import TestSupport

extension RedisClient {
  /// Runs `body` once a `DEBUG SLEEP` of `seconds` holds one of the pool's connections, then returns
  /// that command's reply. Structured: a suite's time limit cancels the sleeping command too.
  func whileAConnectionSleeps(_ seconds: String, _ body: () async throws -> Void) async throws -> RESPValue {
    async let busy: RESPValue = execute(["DEBUG", "SLEEP", RedisArgument(seconds)])
    try await waitUntil("the connection is taken", poll: .milliseconds(2)) { statistics.open > 0 }
    try await body()
    return try await busy
  }
}

extension RedisClient {
  /// Runs `body` with a fresh `redis-server` over `transport` and a client of it (relaxed timeouts
  /// unless `make` says otherwise), and shuts the client down afterwards.
  static func withServer(
    _ transport: RedisTransport,
    client make: (RedisServerProcess) throws -> RedisClient = {
      try RedisClient(try RedisConfiguration.relaxed($0), time: .system)
    },
    _ body: (RedisServerProcess, RedisClient) async throws -> Void
  ) async throws {
    let server = try await RedisServerProcess(transport)
    let client = try make(server)
    defer { client.shutdown() }
    try await body(server, client)
  }
}
