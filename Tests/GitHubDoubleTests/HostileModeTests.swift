import Compression
import Foundation
import GitHubDouble
import HTTP
import TestSupport
import Testing

/// Every hostile mode changes the answers it concerns in the way its documentation says.
@Suite("Hostile modes", .timeLimit(.minutes(3)))
struct HostileModeTests {
  static let token = "ghp_hostileModeToken0123456789"

  /// A small double with `mode` set, a short hang limit and no realistic framing (bodies are read raw).
  static func double(_ mode: HostileMode) -> GitHubDouble {
    Fixtures.small {
      $0.faults.mode = mode
      $0.faults.hangLimit = .milliseconds(100)
      $0.realisticWire = false
      $0.legacyItemRate = 0
      $0.shortPageRate = 0
    }
  }

  /// The target a mode is checked on.
  static func target(_ mode: HostileMode, _ double: GitHubDouble) -> String {
    if mode.targetsAvatars { return "/u/7?s=40" }
    switch mode {
    case .historyHuge, .historyBadWeeks, .historyObject:
      let repo = double.catalog.repositories.first { $0.stars > 300 } ?? double.catalog.repositories[0]
      return "/repos/\(double.catalog.owner(of: repo).login)/\(repo.name)/stargazers/history?per_page=30"
    default:
      return "/search/repositories?q=stars%3A%3E%3D0&per_page=30"
    }
  }

  @Test(
    "each mode misbehaves as documented", arguments: HostileMode.allCases.filter { $0 != .dropConnection })
  func modeMisbehaves(mode: HostileMode) async throws {
    let double = Self.double(mode)
    let target = Self.target(mode, double)
    let clean = Self.double(mode)
    clean.setFaults(FaultSettings())
    let normal = try await clean.get(target)
    let started = ContinuousClock.now
    let r = try await double.get(target, headers: ["Authorization": "Bearer \(Self.token)"])
    let elapsed = ContinuousClock.now - started
    let text = r.text
    let json = try? r.json()
    let items = json?["items"]?.array ?? json?.array ?? []
    switch mode {
    case .hugeCounts: expectTrue(text.contains("\"stargazers_count\":9223372036854775807"))
    case .negativeCounts: expectTrue(text.contains("\"forks_count\":-9223372036854775808"))
    case .floatCounts: expectTrue(text.contains("\"stargazers_count\":1e300"))
    case .overflowCounts: expectTrue(text.contains("\"id\":123456789012345678901234567890"))
    case .stringCounts: expectTrue(items.contains { $0["stargazers_count"] == .string("12") })
    case .nullFields: expectTrue(items.contains { $0["name"] == .null })
    case .hugeTotal: expectTrue(text.hasPrefix("{\"total_count\":9223372036854775807,"))
    case .negativeTotal: expectEqual(json?["total_count"]?.int, -5)
    case .historyHuge: expectTrue(text.contains("\"total\":100000000000000000"))
    case .malformedItems:
      expectEqual(items.count, 30)
      expectTrue(
        items.contains { $0["id"]?.int == nil || $0["owner"]?.object == nil || $0["name"]?.string == nil })
      expectTrue(items.contains { $0["id"]?.int != nil && $0["name"]?.string != nil })
    case .junkItems: expectTrue(items.count > 30 && items.contains { $0 == .null || $0.object == nil })
    case .duplicateIDs: expectEqual(Set(items.map { $0["id"]?.int }), [4242])
    case .historyBadWeeks: expectTrue(items.contains { $0["days"]?.array?.count == 3 })
    case .historyObject: expectTrue(json?.object != nil)
    case .invalidUTF8: expectTrue(r.bytes.contains(0xFF) && String(validating: r.bytes, as: UTF8.self) == nil)
    case .loneSurrogate: expectTrue(text.contains(#"\ud800"#))
    case .controlChars: expectTrue(text.contains(#"\u0000"#) && text.contains(#"\u001b"#))
    case .hugeStrings: expectTrue(r.bytes.count > 2_000_000 && json != nil)
    case .deepNesting: expectTrue(text.contains(String(repeating: "[", count: 5000)))
    case .emptyBody: expectTrue(r.status == .ok && r.bytes.isEmpty)
    case .notJSON: expectTrue(r.status == .ok && r.headers["Content-Type"]?.hasPrefix("text/html") == true)
    case .wrongEnvelope: expectTrue(json?["items"]?.object != nil && json?["total_count"]?.string != nil)
    case .truncated: expectTrue(json == nil && r.bytes.count < normal.bytes.count)
    case .shortPages:
      expectTrue(items.count == 10 && json?["incomplete_results"] == .bool(true))
    case .resetFarFuture, .resetPast:
      expectTrue(r.status == .ok && r.headers["x-ratelimit-remaining"] == "0")
      let reset = Int(r.headers["x-ratelimit-reset"] ?? "") ?? 0
      expectTrue(mode == .resetPast ? reset == 1000 : reset > Int(Date().timeIntervalSince1970) + 300_000_000)
    case .primaryFarFuture:
      expectTrue(r.status == .forbidden && r.headers["x-ratelimit-remaining"] == "0")
      expectTrue(text.contains("API rate limit exceeded"))
    case .retryAfterHuge: expectTrue(r.status == .forbidden && r.headers["Retry-After"] == "999999999999")
    case .retryAfterNegative: expectTrue(r.status == .forbidden && r.headers["Retry-After"] == "-30")
    case .retryAfterGarbage: expectTrue(r.status == .forbidden && r.headers["Retry-After"] == "soon")
    case .rateGarbage: expectTrue(r.status == .ok && r.headers["x-ratelimit-remaining"] == "lots")
    case .bare429: expectTrue(r.status.code == 429 && r.bytes.isEmpty && r.headers["Retry-After"] == nil)
    case .abuseHTML: expectTrue(r.status == .forbidden && text.contains("abuse detection") && json == nil)
    case .abuseJSON:
      expectTrue(r.status == .forbidden && json?["message"]?.string?.contains("abuse detection") == true)
    case .forbiddenEmpty: expectTrue(r.status == .forbidden && r.bytes.isEmpty)
    case .gzipBomb, .avatarGzipBomb:
      expectEqual(r.headers["Content-Encoding"], "gzip")
      expectTrue(r.bytes.count < 200_000)
      #expect(throws: CompressionError.self) { try gunzip(r.bytes, limit: 32 << 20) }
      try expectEqual(gunzip(r.bytes, limit: 64 << 20).count, 64 << 20)
    case .gzipInvalid:
      expectEqual(r.headers["Content-Encoding"], "gzip")
      #expect(throws: CompressionError.self) { try gunzip(r.bytes, limit: 1 << 24) }
    case .hugeBody: expectTrue(r.bytes.count > 40_000_000 && json != nil)
    case .hugeHeader: expectEqual((r.headers["X-Padding"]?.utf8.count ?? 0), 262_144)
    case .manyHeaders: expectTrue(r.headers.count > 5000)
    case .dropConnection:
      Issue.record("checked by dropConnectionFails")
    case .slowBody:
      expectTrue(elapsed > .seconds(2) && r.bytes == normal.bytes)
    case .badGateway: expectTrue(r.status.code == 502 && json == nil)
    case .apiHang, .avatarHang:
      expectTrue(r.status.code == 504 && elapsed >= .milliseconds(100))
    case .redirectLoop:
      expectTrue(r.status == .found && r.headers["Location"] == "http://double.test" + target)
    case .redirectMetadata: expectEqual(r.headers["Location"]?.contains("169.254.169.254"), true)
    case .echoToken: expectTrue(text.contains(Self.token))
    case .echoTokenEscaped:
      let description = items.first?["description"]?.string ?? ""
      expectTrue(!text.contains(Self.token) && description.contains(Self.token))
      expectEqual(
        description.distance(from: description.startIndex, to: description.range(of: Self.token)!.lowerBound),
        296)
    case .echoTokenError: expectTrue(r.status.code == 422 && text.contains(Self.token))
    case .avatarSlow: expectTrue(elapsed >= .seconds(3) && r.bytes == normal.bytes)
    case .avatarNotImage: expectEqual(r.headers["Content-Type"], "text/html")
    case .avatarHuge: expectTrue(r.bytes.count > 4_000_000 && r.headers["Content-Type"] == "image/png")
    }
  }

  @Test("a stream cut in the middle fails the read (drop-connection)")
  func dropConnectionFails() async throws {
    let double = Self.double(.dropConnection)
    await #expect(throws: (any Error).self) { _ = try await double.get(Self.target(.dropConnection, double)) }
  }

  @Test("modes are seeded: the same seed and request give the same answer, in one double or two")
  func seeded() async throws {
    let a = Self.double(.malformedItems)
    let target = Self.target(.malformedItems, a)
    try await expectEqual(a.get(target).bytes, (try await a.get(target).bytes))
    let b = Fixtures.small(seed: 7) {
      $0.faults.mode = .malformedItems
      $0.realisticWire = false
      $0.legacyItemRate = 0
      $0.shortPageRate = 0
    }
    try await expectEqual(a.get(target).bytes, (try await b.get(target).bytes))
  }

  @Test("modes are set and cleared through the control API and leave other routes alone")
  func controlAPI() async throws {
    let double = Self.double(.notJSON)
    double.setFaults(FaultSettings())
    try await expectEqual(double.post("/_double/faults?mode=avatar-not-image").status, .ok)
    expectTrue(try await double.get("/_double/faults").text.contains("\"mode\":\"avatar-not-image\""))
    try await expectEqual(double.get("/u/3?s=40").headers["Content-Type"], "text/html")
    expectTrue(try await double.get(Self.target(.notJSON, double)).json()["items"] != nil)
    try await expectEqual(double.post("/_double/faults?mode=bogus").status, .badRequest)
    try await expectEqual(double.post("/_double/faults?mode=none").status, .ok)
    try await expectEqual(double.get("/u/3?s=40").headers["Content-Type"], "image/png")
  }
}
