import CurlClient
import Foundation
import HTTP
import TestSupport
import Testing

/// A GitHub App reader across 3 instances behind nginx with one Redis, against the standalone
/// double's App mode: in each of three 8-hour periods, 20 requests in flight through every instance
/// refresh the token exactly once and are all served as the reader; a sign-in over a live session leaves one live
/// token; an expired refresh token ends the session with the notice, never a 500; and no log of the
/// run (the instances', nginx's in the shipped format, the double's) holds a `code=` or a `state=`.
@Suite("GitHub App tokens across instances", .serialized, .timeLimit(.minutes(5)))
struct TokenClusterTests {
  typealias Jar = SignInClusterTests.Jar
  static let login = "app-reader"
  static let http = SignInClusterTests.http

  @Test func eightHoursOnTwentyRequestsInFlightRefreshOnceAndEveryLogStaysClean() async throws {
    let sign = try SignInSite(
      clientID: "Iv23.demo-app", clientSecret: "demo-app-secret", arguments: ["--access-log", "true"])
    defer { sign.removeKeyFile() }
    // The reader's own search budget out of reach too: 60 searches in a few seconds must not turn
    // into the rate-limit state, which would answer without asking GitHub (nor refreshing).
    let cluster = try await Cluster.start(
      instances: 3, shared: true, doubleArguments: ["--reader-search-limit", "100000"], withNginx: true,
      nginxPort: sign.nginxPort, extra: sign.extra)
    try await cluster.run { try await Self.run($0, site: sign.site) }
    // Every log of the run, once every process has flushed and stopped.
    var logs = cluster.instances.map { $0.output + $0.errorOutput }
    logs.append(cluster.double.output + cluster.double.errorOutput)
    let nginxLogs = try #require(cluster.nginxLogs)
    for file in try FileManager.default.contentsOfDirectory(atPath: nginxLogs) {
      logs.append((try? String(contentsOfFile: nginxLogs + "/" + file, encoding: .utf8)) ?? "")
    }
    let all = logs.joined(separator: "\n")
    expectTrue(all.contains("/login/callback?[redacted]"), "the callbacks were logged, without their query")
    for line in all.split(separator: "\n") where line.contains("code=") || line.contains("state=") {
      Issue.record("a log line holds the callback's query: \(line)")
    }
  }

  static func run(_ cluster: Cluster, site: String) async throws {
    let jar = Jar()
    try await signIn(cluster, site: site, jar)
    let session = try #require(jar.cookies["reposcroll_session"])
    // Scrolling a little first: the reader's token works as it is, and nothing is refreshed.
    _ = try await SignInClusterTests.send(site + "/fragments/results?q=stars%3A%3E%3D0&after=20", jar)
    expectTrue(try await refreshes(cluster).isEmpty)

    let repositories = try await repositoryNames(cluster, jar)
    // Eight hours on at GitHub, three times (the instances' clocks do not move: GitHub refuses the
    // token first): each time, 20 requests in flight through every instance refresh it once.
    for cycle in 1...3 {
      try await cluster.control("POST", "/_double/oauth/advance?seconds=28800")
      try await cluster.control("POST", "/_double/reset")
      let outcomes = try await inFlight(
        20, site: site, session: session, repositories: repositories, cycle: cycle)
      expectTrue(outcomes.allSatisfy { $0.0 == 200 }, "\(outcomes.map(\.0))")
      expectTrue(!outcomes.contains { $0.1.contains("rate limit") }, "the rate-limit state hides the test")
      expectTrue(
        !outcomes.contains {
          $0.1 == "cleared" || $0.1.contains("no longer accepts") || $0.1.contains("unavailable")
        })
      let refreshed = try await refreshes(cluster)
      expectEqual(refreshed.count, 1, "8 hours #\(cycle): refreshes \(refreshed)")
      expectTrue(refreshed.allSatisfy { $0.error == nil && $0.identity == login })
      let served = try await records(cluster, endpoints: ["search", "history"]).filter { $0.status == 200 }
      expectTrue(!served.isEmpty)
      expectEqual(served.filter { $0.identity != login }, [], "served otherwise")
    }
    // Every instance still knows the reader, on the rotated token.
    for port in cluster.ports {
      let page = SignInClusterTests.text(
        try await SignInClusterTests.send("http://127.0.0.1:\(port)/?q=swift", jar))
      expectTrue(page.contains("account-login") && page.contains(login), "instance \(port) lost the reader")
    }
    try await expectEqual(liveTokens(cluster), 1)

    // Signing in again over the live session leaves one live token at GitHub.
    try await signIn(cluster, site: site, jar)
    expectTrue(jar.cookies["reposcroll_session"] != session)
    expectTrue(await eventually(within: .seconds(20)) { (try? await liveTokens(cluster)) == 1 })

    // Six months on, the refresh token has expired: the session ends with the notice, no 500.
    try await cluster.control("POST", "/_double/oauth/advance?seconds=15897600")
    try await cluster.control("POST", "/_double/reset")
    let ended = try await SignInClusterTests.send(site + "/?q=topic%3Aended", jar)
    expectEqual(ended.status.code, 200)
    expectTrue(SignInClusterTests.text(ended).contains("GitHub no longer accepts your sign-in"))
    try await expectEqual(refreshes(cluster).map(\.error), ["bad_refresh_token"])
    // The cookie is cleared by that answer, or (when its head was already out) by the next one.
    let after = try await SignInClusterTests.send(site + "/?q=topic%3Aended", jar)
    expectTrue(!SignInClusterTests.text(after).contains("account-login"))
    expectEqual(jar.cookies["reposcroll_session"], nil)
  }

  /// `count` requests at once through nginx with the session cookie (fragments of queries nobody
  /// asked, and star histories): each one's status, and its body or "cleared" when it cleared the cookie.
  static func inFlight(_ count: Int, site: String, session: String, repositories: [String], cycle: Int)
    async throws -> [(Int, String)]
  {
    try await withThrowingTaskGroup(of: (Int, String).self) { group in
      for index in 0..<count {
        let target =
          index.isMultiple(of: 2)
          ? "/fragments/results?q=topic%3Ac\(cycle)x\(index)&after=20"
          : "/fragments/stars/\(repositories[(index / 2 + cycle) % repositories.count])"
        group.addTask {
          let response = try await http.execute(
            ClientRequest(url: site + target, headers: ["Cookie": "reposcroll_session=\(session)"]))
          let cleared = response.headers.values(for: "Set-Cookie").contains { $0.contains("Max-Age=0") }
          return (response.status.code, cleared ? "cleared" : String(decoding: response.body, as: UTF8.self))
        }
      }
      var all: [(Int, String)] = []
      for try await outcome in group { all.append(outcome) }
      return all
    }
  }

  /// `/login` through nginx, the double's Authorize form as `login`, and the callback.
  static func signIn(_ cluster: Cluster, site: String, _ jar: Jar) async throws {
    let signed = try await SignInClusterTests.signIn(
      login, site: site, double: "http://127.0.0.1:\(cluster.doublePort)", into: jar)
    expectTrue(signed.callback.hasPrefix(site + "/login/callback?code="))
    expectEqual(signed.landed.status.code, 303)
  }

  /// A few `owner/repo` names from the first page, for star histories.
  static func repositoryNames(_ cluster: Cluster, _ jar: Jar) async throws -> [String] {
    let page = try await Cluster.get(
      port: cluster.doublePort, "/search/repositories?q=stars%3A%3E%3D0&per_page=10")
    let names = page.text.matches(of: #/"full_name":"([^"/]+/[^"]+)"/#).map { String($0.1) }
    expectEqual(names.count, 10)
    return names
  }

  struct Record: Equatable, CustomStringConvertible {
    var identity: String
    var status: Int
    var error: String?
    var description: String { "\(identity) \(status) \(error ?? "")" }
  }

  /// The double's log of `endpoints`.
  static func records(_ cluster: Cluster, endpoints: [String]) async throws -> [Record] {
    var all: [Record] = []
    for endpoint in endpoints {
      let log = try await cluster.control("GET", "/_double/requests?endpoint=\(endpoint)")
      for index in 0..<(log["requests"]?.array?.count ?? 0) {
        guard let entry = log["requests"]?[index] else { continue }
        all.append(
          Record(
            identity: entry["identity"]?.string ?? "", status: entry["status"]?.int ?? 0,
            error: entry["error"]?.string))
      }
    }
    return all
  }

  static func refreshes(_ cluster: Cluster) async throws -> [Record] {
    try await records(cluster, endpoints: ["token_refresh"])
  }

  static func liveTokens(_ cluster: Cluster) async throws -> Int? {
    try await cluster.control("GET", "/_double/oauth/tokens?login=\(login)")["live"]?.int
  }
}
