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
