import GitHubDouble
import HTTP
import TestSupport
import Testing

@Suite("Faults and control", .serialized, .timeLimit(.minutes(3)))
struct FaultTests {
  @Test("each fault at rate 1 has GitHub's shape", arguments: ["rate5xx", "secondary", "truncated"])
  func shapes(fault: String) async throws {
    let d = Fixtures.small()
    try await expectEqual(d.post("/_double/faults?\(fault)=1&retryAfter=42").status, .ok)
    let r = try await d.get("/search/repositories?q=go")
    switch fault {
    case "rate5xx":
      expectTrue([500, 502, 503].contains(r.status.code))
    case "secondary":
      expectEqual(r.status, .forbidden)
      expectEqual(r.headers["Retry-After"], "42")
      try expectEqual(r.json()["message"]?.string?.contains("secondary rate limit"), true)
      expectTrue(r.headers["x-ratelimit-remaining"] != "0")
    default:
      expectEqual(r.status, .ok)
      #expect(throws: SchemaJSON.ParseError.self) { try SchemaJSON.parse(r.bytes) }
    }
  }

  @Test("a 30% 5xx rate is roughly 30% and reproducible for a seed")
  func rates() async throws {
    func run() async throws -> [Int] {
      let d = Fixtures.small()
      _ = try await d.post("/_double/faults?rate5xx=0.3")
      var codes: [Int] = []
      for _ in 0..<400 { codes.append(try await d.get("/rate_limit").status.code) }
      return codes
    }
    let a = try await run()
    let b = try await run()
    expectEqual(a, b)
    let failures = a.filter { $0 >= 500 }.count
    expectTrue(failures > 80 && failures < 160, "\(failures) of 400")
  }

  @Test("counters count calls per endpoint and status; reset clears them")
  func counters() async throws {
    let d = Fixtures.small()
    _ = try await d.get("/search/repositories?q=go")
    _ = try await d.get("/search/repositories?q=")
    _ = try await d.get("/u/5?s=10")
    _ = try await d.get("/nowhere")
    let j = try await d.get("/_double/counters").json()
    expectEqual(j["total"]?.int, 4)
    expectEqual(j["endpoints"]?["search"]?["calls"]?.int, 2)
    expectEqual(j["endpoints"]?["search"]?["statuses"]?["422"]?.int, 1)
    expectEqual(j["endpoints"]?["avatar"]?["statuses"]?["200"]?.int, 1)
    expectEqual(j["endpoints"]?["other"]?["statuses"]?["404"]?.int, 1)
    _ = try await d.post("/_double/reset")
    try await expectEqual(d.get("/_double/counters").json()["total"]?.int, 0)
    try await expectEqual(d.get("/_double/reset").status, .methodNotAllowed)
  }

  @Test(
    "fault parameters are validated", arguments: ["rate5xx=2", "latency=a..b", "latency.nope=5", "bogus=1"])
  func badFaults(query: String) async throws {
    let d = Fixtures.small()
    try await expectEqual(d.post("/_double/faults?\(query)").status, .badRequest)
  }

  @Test("latency per endpoint delays only that endpoint")
  func latency() async throws {
    let d = Fixtures.small()
    _ = try await d.post("/_double/faults?latency.count=150")
    let f = try await d.get("/_double/faults").json()
    expectEqual(f["perEndpointLatency"]?["count"]?.string, "150")
    let clock = ContinuousClock()
    let repo = d.catalog.repositories[0]
    let start = clock.now
    _ = try await d.get("/repos/\(d.catalog.owner(of: repo).login)/\(repo.name)/stargazers/count")
    expectTrue(clock.now - start >= .milliseconds(150))
  }

  @Test("a hang lasts until the task is cancelled")
  func hangCancels() async throws {
    let d = Fixtures.small()
    _ = try await d.post("/_double/faults?hang=1&hangLimit=60000")
    let task = Task { try await d.get("/search/repositories?q=go") }
    try await waitUntil("the search hangs", poll: .milliseconds(5)) { d.counters().inFlight == 1 }
    task.cancel()
    let result = await task.result
    #expect(throws: CancellationError.self) { try result.get() }
  }

  @Test("a hang past its limit answers 504")
  func hangLimit() async throws {
    let d = Fixtures.small()
    _ = try await d.post("/_double/faults?hang=1&hangLimit=50")
    try await expectEqual(d.get("/search/repositories?q=go").status.code, 504)
  }
}
