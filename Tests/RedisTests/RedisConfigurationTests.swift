import Redis
import Testing

/// `redis://` URLs.
@Suite(.timeLimit(.minutes(3))) struct RedisConfigurationTests {
  @Test func parsesEveryPart() throws {
    let plain = try RedisConfiguration(url: "redis://cache.internal")
    #expect(plain.host == "cache.internal")
    #expect(plain.port == 6379)
    #expect(plain.database == 0)
    #expect(plain.password == nil && plain.username == nil)

    let full = try RedisConfiguration(url: "REDIS://:p%40ss@10.0.0.5:6380/7")
    #expect(full.host == "10.0.0.5")
    #expect(full.port == 6380)
    #expect(full.database == 7)
    #expect(full.password == "p@ss")
    #expect(full.username == nil)

    let acl = try RedisConfiguration(url: "redis://app:pw@[::1]:7000/")
    #expect(acl.host == "::1")
    #expect(acl.port == 7000)
    #expect(acl.username == "app" && acl.password == "pw")

    let ipv6 = try RedisConfiguration(url: "redis://[fe80::1]")
    #expect(ipv6.host == "fe80::1" && ipv6.port == 6379)
  }

  @Test func rejectsBadURLsWithTypedErrors() {
    let cases: [(String, RedisURLError)] = [
      ("http://localhost", .unsupportedScheme("http")),
      ("localhost:6379", .unsupportedScheme("?")),
      ("", .unsupportedScheme("")),
      ("rediss://localhost", .tlsNotSupported),
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
    #expect(configuration.description == "redis://:***@127.0.0.1:6379/2")
    #expect(!String(describing: configuration).contains("hunter2"))
    #expect(
      !RedisError.authFailed("WRONGPASS invalid username-password pair").description.contains("hunter2"))
  }
}
