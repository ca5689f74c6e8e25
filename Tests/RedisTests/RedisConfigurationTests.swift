import Redis
import TLS
import TestSupport
import Testing

/// `redis://` URLs.
@Suite(.timeLimit(.minutes(3))) struct RedisConfigurationTests {
  @Test func parsesEveryPart() throws {
    let plain = try RedisConfiguration(url: "redis://cache.internal")
    expectEqual(plain.host, "cache.internal")
    expectEqual(plain.port, 6379)
    expectEqual(plain.database, 0)
    expectTrue(plain.password == nil && plain.username == nil)

    let full = try RedisConfiguration(url: "REDIS://:p%40ss@10.0.0.5:6380/7")
    expectEqual(full.host, "10.0.0.5")
    expectEqual(full.port, 6380)
    expectEqual(full.database, 7)
    expectEqual(full.password, "p@ss")
    expectEqual(full.username, nil)

    let acl = try RedisConfiguration(url: "redis://app:pw@[::1]:7000/")
    expectEqual(acl.host, "::1")
    expectEqual(acl.port, 7000)
    expectTrue(acl.username == "app" && acl.password == "pw")

    let ipv6 = try RedisConfiguration(url: "redis://[fe80::1]")
    expectTrue(ipv6.host == "fe80::1" && ipv6.port == 6379)
    expectEqual(plain.tls, nil)

    // rediss:// is TLS, trusting the system store until a CA file is given.
    let tls = try RedisConfiguration(url: "rediss://app:pw@redis.internal:6380/2")
    expectEqual(tls.tls, TLSClientConfiguration())
    expectTrue(tls.host == "redis.internal" && tls.port == 6380 && tls.database == 2)
    expectTrue(tls.username == "app" && tls.password == "pw")
    expectEqual(tls.description, "rediss://app:***@redis.internal:6380/2")
  }

  @Test func parsesSentinelLists() throws {
    let sentinel = try RedisSentinelConfiguration(
      sentinels: "10.0.0.5:26380, 10.0.0.6,[::1]:26381", masterName: "reposcroll")
    expectEqual(
      sentinel.sentinels,
      [
        RedisServerAddress(host: "10.0.0.5", port: 26380), RedisServerAddress(host: "10.0.0.6", port: 26379),
        RedisServerAddress(host: "::1", port: 26381),
      ])
    expectEqual(sentinel.masterName, "reposcroll")
    var configuration = try RedisConfiguration(url: "rediss://:secret@reposcroll/1")
    configuration.sentinel = sentinel
    expectEqual(
      configuration.description,
      "rediss://:***@reposcroll/1 via sentinels 10.0.0.5:26380,10.0.0.6:26379,[::1]:26381")
    #expect(throws: RedisURLError.missingHost) {
      try RedisSentinelConfiguration(sentinels: "", masterName: "m")
    }
    #expect(throws: RedisURLError.invalidPort("x")) {
      try RedisSentinelConfiguration(sentinels: "a:x", masterName: "m")
    }
    #expect(throws: RedisURLError.invalidMasterName) {
      try RedisSentinelConfiguration(sentinels: "a:1", masterName: "two words")
    }
    #expect(throws: RedisURLError.invalidMasterName) {
      try RedisSentinelConfiguration(sentinels: "a:1", masterName: "")
    }
  }

  @Test func rejectsBadURLsWithTypedErrors() {
    let cases: [(String, RedisURLError)] = [
      ("http://localhost", .unsupportedScheme("http")),
      ("localhost:6379", .unsupportedScheme("?")),
      ("", .unsupportedScheme("")),
      ("rediss://", .missingHost),
      ("redis://", .missingHost),
      ("redis://:pw@:6379/0", .missingHost),
      ("redis://[::1", .missingHost),
      ("redis://host:0", .invalidPort("0")),
      ("redis://host:65536", .invalidPort("65536")),
      ("redis://host:port", .invalidPort("port")),
      ("redis://host:", .invalidPort("")),
      ("redis://[::1]x", .invalidPort("x")),
      ("redis://host/x", .invalidDatabase("x")),
      ("redis://host/-1", .invalidDatabase("-1")),
      ("redis://host/99999", .invalidDatabase("99999")),
      ("redis://host/1/2", .invalidDatabase("1/2")),
      ("redis://:%zz@host", .invalidPercentEncoding),
      ("redis://:%ff@host", .invalidPercentEncoding),
      ("redis://host/0?timeout=1", .unexpectedQueryOrFragment),
    ]
    for (url, expected) in cases {
      #expect(throws: expected, "\(url)") { try RedisConfiguration(url: url) }
    }
  }

  @Test func descriptionsNeverShowThePassword() throws {
    let configuration = try RedisConfiguration(url: "redis://:hunter2@127.0.0.1:6379/2")
    expectEqual(configuration.description, "redis://:***@127.0.0.1:6379/2")
    expectTrue(!String(describing: configuration).contains("hunter2"))
    expectTrue(
      !RedisError.authFailed("WRONGPASS invalid username-password pair").description.contains("hunter2"))
  }
}
