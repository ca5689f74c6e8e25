import CurlClient
import Foundation
import HTTP
import TestSupport
import Testing

/// Sign in with GitHub over 3 instances behind nginx with one Redis, against the standalone double's
/// OAuth side: a session made through one instance is good on every instance, survives a Redis
/// restart (Redis with persistence, as the README asks for sessions), and while Redis is down the
/// reader goes on anonymously with a notice, never a 500.
@Suite("Sign in across instances", .serialized, .timeLimit(.minutes(4)))
struct SignInClusterTests {
  static let http = CurlHTTPClient(configuration: CurlClientConfiguration(totalTimeout: .seconds(20)))

  /// A browser's cookies for one site.
  final class Jar: @unchecked Sendable {
    // @unchecked Sendable: one test task uses it, never concurrently.
    var cookies: [String: String] = [:]
    func take(_ response: ClientResponse) {
      for header in response.headers.values(for: "Set-Cookie") {
        let pair = header.split(separator: ";", maxSplits: 1)[0]
        guard let equals = pair.firstIndex(of: "=") else { continue }
        let name = String(pair[..<equals])
        cookies[name] = header.contains("Max-Age=0") ? nil : String(pair[pair.index(after: equals)...])
      }
    }
    var header: String { cookies.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: "; ") }
  }

  static func send(
    _ url: String, _ jar: Jar, method: HTTPMethod = .get, form: String? = nil
  ) async throws -> ClientResponse {
    var headers: HTTPHeaders = [:]
    if !jar.cookies.isEmpty { headers.add(name: "Cookie", value: jar.header) }
    if form != nil { headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded") }
    let response = try await http.execute(
      ClientRequest(url: url, method: method, headers: headers, body: Array((form ?? "").utf8)))
    jar.take(response)
    expectTrue(response.status.code < 500, "\(method) \(url) answered \(response.status)")
    return response
  }

  static func text(_ response: ClientResponse) -> String { String(decoding: response.body, as: UTF8.self) }

  @Test func aSessionMadeThroughOneInstanceHoldsOnEveryInstanceAndThroughARedisRestart() async throws {
    let sign = try SignInSite(keyByte: "5a", clientID: "Iv1.demo-client", clientSecret: "demo-secret")
    defer { sign.removeKeyFile() }
    let cluster = try await sign.persistentCluster()
    try await cluster.run { try await Self.run($0, site: sign.site) }
  }

  static func run(_ cluster: Cluster, site: String) async throws {
    let double = "http://127.0.0.1:\(cluster.doublePort)"
    let jar = Jar()
    // Sign in through nginx: /login, the double's Authorize form, the callback.
    let signed = try await signIn(
      "mona", site: site, double: double, path: "/login?return_to=%2F%3Fq%3Dswift", into: jar)
    expectTrue(
      signed.authorize.hasPrefix(site) == false && signed.authorize.contains("/login/oauth/authorize?"))
    expectTrue(signed.callback.hasPrefix(site + "/login/callback?"))
    let landed = signed.landed
    expectEqual(landed.status.code, 303)
    expectEqual(landed.headers["Location"], "/?q=swift")
    let session = try #require(jar.cookies["reposcroll_session"], "a session cookie (plain-http loopback)")

    // Every instance, asked directly, knows the reader.
    for port in cluster.ports {
      let page = text(try await send("http://127.0.0.1:\(port)/?q=swift", jar))
      expectTrue(page.contains("account-login"), "instance \(port) shows the reader signed in")
      expectTrue(page.contains("mona"))
      expectTrue(!page.contains(session), "the session id is never in a page")
    }
    // A fragment for a query nobody asked, from each instance: the search goes out as the reader.
    for (index, port) in cluster.ports.enumerated() {
      _ = try await send("http://127.0.0.1:\(port)/fragments/results?q=topic%3Ax\(index)&after=20", jar)
    }
    let identities = try await searchIdentities(cluster)
    expectTrue(
      identities.filter { $0 == "mona" }.count >= 3, "fragments searched as the reader: \(identities)")
    expectTrue(!identities.contains("server"))

    // Redis restarts (persistence on): the session is still there.
    try await #require(cluster.redis).restart()
    let afterRestart = try await eventuallySignedIn(cluster.ports[1], jar)
    expectTrue(afterRestart, "signed in after Redis restarted")

    // Redis down: anonymous with a visible notice, never a 500, and the cookie is kept.
    await cluster.redis?.stop()
    let down = try await send("http://127.0.0.1:\(cluster.ports[2])/?q=swift", jar)
    expectEqual(down.status.code, 200)
    let downPage = text(down)
    expectTrue(!downPage.contains("account-login"))
    expectTrue(downPage.contains("Sign-in is unavailable right now"), "a visible notice")
    expectEqual(jar.cookies["reposcroll_session"], session)
  }

  /// The identity of every search the double has answered.
  static func searchIdentities(_ cluster: Cluster) async throws -> [String] {
    let reply = try await Cluster.get(port: cluster.doublePort, "/_double/requests?endpoint=search")
    return reply.text.matches(of: #/"identity":"([^"]*)"/#).map { String($0.1) }
  }

  /// Whether instance `port` shows the reader signed in within a few tries (Redis reconnects).
  static func eventuallySignedIn(_ port: Int, _ jar: Jar) async throws -> Bool {
    // The instance's Redis connection comes back on its own schedule.
    await eventually(within: .seconds(15), poll: .milliseconds(100)) {
      text(try await send("http://127.0.0.1:\(port)/?q=swift", jar)).contains("account-login")
    }
  }
}
