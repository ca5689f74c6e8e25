import Redis
import SharedStore

extension SharedStoreStatus {
  /// What the Redis client has seen (the server's role, failovers, TLS handshakes); nil for other
  /// backends.
  var redis: RedisTelemetry.Snapshot? { telemetry as? RedisTelemetry.Snapshot }
}

extension RedisTelemetry.Snapshot {
  /// The Redis lines of `/metrics`: which role the server this instance talks to has, and where it
  /// is; the failovers it followed; its TLS handshakes and TLS failures.
  func render(into out: inout MetricsText) {
    out.family(
      "reposcroll_redis_role", .gauge,
      "1 for the role the Redis server this instance talks to answered ROLE with (none before a connection).")
    for candidate in RedisRole.allCases {
      out.sample("reposcroll_redis_role", labels: "role=\"\(candidate.rawValue)\"", role == candidate ? 1 : 0)
    }
    if let server {
      out.family("reposcroll_redis_server_info", .gauge, "The Redis server connections go to (always 1).")
      out.sample("reposcroll_redis_server_info", labels: "server=\"\(Self.address(server))\"", 1)
    }
    out.single(
      "reposcroll_redis_failovers_total", .counter,
      "Changes of Redis master followed (+switch-master, or the sentinels naming another master).", failovers)
    let name = "reposcroll_redis_tls_handshake_seconds"
    out.family(name, .histogram, "Time from the TCP connection to a verified TLS session with Redis.")
    out.histogram(
      name, bounds: RedisTelemetry.handshakeBounds, buckets: handshakeBuckets, count: handshakeCount,
      sum: handshakeSeconds)
    out.single(
      "reposcroll_redis_tls_errors_total", .counter,
      "Redis connections refused for a TLS reason (certificate refused, not TLS, alert).", tlsFailures)
  }

  /// The `/healthz` line: the server, its role and the failovers followed; nil before a connection.
  var healthLine: String? {
    guard let server else { return nil }
    let checked = role.map { "(\($0.rawValue))" } ?? "(role not checked yet)"
    return "redis: \(server) \(checked), failovers followed: \(failovers)\n"
  }

  /// `host:port` with only the characters an address has.
  private static func address(_ text: String) -> String {
    String(
      text.unicodeScalars.filter {
        $0.properties.isAlphabetic || ("0"..."9").contains($0) || ".:-[]".unicodeScalars.contains($0)
      }
      .prefix(100).map(Character.init))
  }
}
