import HTTP
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(2))) struct TrustedProxiesTests {
  static func headers(_ pairs: (String, String)...) -> HTTPHeaders { HTTPHeaders(pairs) }

  @Test func blocksParseAndMatchBothFamilies() throws {
    let proxies = try TrustedProxies(parsing: " 10.0.0.0/8, 127.0.0.1 ,fd00::/8,::1")
    expectEqual(proxies.networks.map(\.description), ["10.0.0.0/8", "127.0.0.1/32", "fd00::/8", "::1/128"])
    expectTrue(proxies.trusts(IPAddress("10.200.3.4")!))
    expectTrue(proxies.trusts(IPAddress("::ffff:10.1.1.1")!), "IPv4-mapped from a dual-stack socket")
    expectTrue(proxies.trusts(IPAddress("fd12:3456::1")!))
    expectTrue(proxies.trusts(IPAddress("[::1]")!))
    expectTrue(!proxies.trusts(IPAddress("11.0.0.1")!))
    expectTrue(!proxies.trusts(IPAddress("127.0.0.2")!))
    expectTrue(!proxies.trusts(IPAddress("fe80::1")!))
    expectTrue(try TrustedProxies(parsing: "").networks.isEmpty)
  }

  @Test(arguments: ["10.0.0.0/33", "::/129", "10.0.0/8", "nope", "10.0.0.0/-1", "10.0.0.0/", "1.2.3.4/8x"])
  func malformedBlocksAreRefused(_ text: String) {
    #expect(throws: TrustedProxiesError.self) { try TrustedProxies(parsing: "127.0.0.1," + text) }
  }

  @Test func aTrustedProxyIsBelievedAndTheWalkStopsAtTheFirstUntrustedHop() throws {
    let proxies = try TrustedProxies(parsing: "127.0.0.1,10.0.0.0/8")
    // The client forged "1.1.1.1"; 203.0.113.7 is what the outer proxy saw, 10.0.0.2 the inner hop.
    let client = proxies.resolve(
      peer: "127.0.0.1",
      headers: Self.headers(
        ("X-Forwarded-For", "1.1.1.1, 203.0.113.7"), ("X-Forwarded-For", "10.0.0.2"),
        ("X-Forwarded-Proto", "https"), ("X-Request-Id", "0123456789abcdef0123456789abcdef")))
    expectEqual(
      client,
      ForwardedClient(
        address: "203.0.113.7", isSecure: true, requestID: "0123456789abcdef0123456789abcdef"))
  }

  @Test func forgedHeadersFromAnUntrustedPeerAreIgnored() throws {
    let proxies = try TrustedProxies(parsing: "10.0.0.0/8")
    let client = proxies.resolve(
      peer: "198.51.100.9",
      headers: Self.headers(
        ("X-Forwarded-For", "127.0.0.1"), ("X-Forwarded-Proto", "https"), ("X-Request-Id", "forged")))
    expectEqual(client, ForwardedClient(address: "198.51.100.9", isSecure: false, requestID: nil))
    // And nobody is trusted by default.
    let none = TrustedProxies().resolve(
      peer: "127.0.0.1", headers: Self.headers(("X-Forwarded-For", "9.9.9.9"), ("X-Forwarded-Proto", "https"))
    )
    expectEqual(none, ForwardedClient(address: "127.0.0.1", isSecure: false, requestID: nil))
  }

  @Test func allTrustedHopsGiveTheLeftmostAndGarbageStopsAtTheProxyThatAddedIt() throws {
    let proxies = try TrustedProxies(parsing: "10.0.0.0/8,127.0.0.1")
    expectEqual(
      proxies.resolve(peer: "127.0.0.1", headers: Self.headers(("X-Forwarded-For", "10.0.0.9, 10.0.0.1")))
        .address, "10.0.0.9")
    expectEqual(
      proxies.resolve(peer: "127.0.0.1", headers: Self.headers(("X-Forwarded-For", "evil\r\n, 10.0.0.1")))
        .address, "10.0.0.1")
    expectEqual(
      proxies.resolve(peer: "127.0.0.1", headers: Self.headers(("X-Forwarded-For", ""))).address, "127.0.0.1")
    expectEqual(
      proxies.resolve(peer: "127.0.0.1", headers: Self.headers(("X-Forwarded-For", "[2001:db8::1]"))).address,
      "2001:db8::1")
    // A thousand-hop header costs a bounded walk and still names an address.
    let long = Array(repeating: "10.0.0.1", count: 1000).joined(separator: ",")
    expectEqual(
      proxies.resolve(peer: "127.0.0.1", headers: Self.headers(("X-Forwarded-For", long))).address, "10.0.0.1"
    )
  }

  @Test func theNearestProxysProtoCountsAndOnlyHTTPSIsSecure() throws {
    let proxies = try TrustedProxies(parsing: "127.0.0.1")
    func secure(_ value: String) -> Bool {
      proxies.resolve(peer: "127.0.0.1", headers: Self.headers(("X-Forwarded-Proto", value))).isSecure
    }
    expectTrue(secure("https") && secure("HTTPS") && secure("http, https"))
    expectTrue(!secure("http") && !secure("https, http") && !secure("httpsx") && !secure(""))
  }

  @Test(arguments: [
    ("0123456789abcdef0123456789abcdef", true), ("a", true), ("req_1.2-3", true),
    ("", false), (String(repeating: "a", count: 65), false), ("id with space", false), ("id\r\nX: y", false),
    ("<script>", false), ("é", false), ("a\"b", false),
  ])
  func requestIDsAreShortSafeTokens(_ id: String, _ valid: Bool) {
    expectEqual(RequestID.isValid(id), valid)
  }
}
