import GitHubDouble
import HTTP
import TestSupport
import Testing

@Suite("Live over 127.0.0.1", .serialized, .timeLimit(.minutes(3)))
struct LiveServerTests {
  @Test("a raw HTTP/1.1 search request gets GitHub's headers, body and absolute Link")
  func rawSearch() async throws {
    let d = Fixtures.small()
    let port = try d.start(host: "127.0.0.1", port: 0)
    let response = try await onThread {
      let c = try RawSocketClient(port: port)
      try c.send(
        "GET /search/repositories?q=stars%3A%3E%3D0&per_page=5 HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
          + "User-Agent: raw\r\nAccept: application/vnd.github+json\r\n\r\n")
      let first = try c.readResponse()
      let counters = try c.request("GET", "/_double/counters")
      return (first, counters)
    }
    await d.shutdown()
    let (r, counters) = response
    expectEqual(r.status, 200)
    expectEqual(r.headers["Content-Type"], "application/json; charset=utf-8")
    expectEqual(r.headers["x-ratelimit-resource"], "search")
    expectEqual(r.headers["Cache-Control"], "no-cache")
    expectEqual(
      r.headers["Link"]?.hasPrefix(
        "<http://127.0.0.1:\(port)/search/repositories?q=stars%3A%3E%3D0&per_page=5&page=2>; rel=\"next\""),
      true)
    let j = try SchemaJSON.parse(r.body)
    expectEqual(j["items"]?.array?.count, 5)
    expectTrue(
      try Fixtures.validator.validate(j, file: "search-repositories-200-response.schema.json").isEmpty)
    try expectEqual(SchemaJSON.parse(counters.body)["endpoints"]?["search"]?["calls"]?.int, 1)
  }

  @Test("a hung request ends when the client disconnects")
  func hangEndsOnDisconnect() async throws {
    let d = Fixtures.small()
    _ = try await d.post("/_double/faults?hang=1&hangLimit=120000")
    let port = try d.start()
    let c = try await onThread {
      let c = try RawSocketClient(port: port)
      try c.send("GET /search/repositories?q=go HTTP/1.1\r\nHost: x\r\n\r\n")
      return c
    }
    expectTrue(await eventually { d.counters().inFlight == 1 }, "the request reached the double")
    c.close()
    // Generous bound: the cancellation normally lands within milliseconds.
    _ = await eventually { d.counters().cancelled > 0 }
    expectEqual(d.counters().cancelled, 1)
    expectEqual(d.counters().inFlight, 0)
    await d.shutdown()
  }
}
