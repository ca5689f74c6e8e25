import CurlClient
import Encodings
import Foundation
import GitHubDouble
import HTTP
import HTTPServer
import Sessions
import Synchronization
import TestSupport
import Testing

@testable import App

/// A browser's cookies for one site: what `Set-Cookie` headers set, sent back on each request.
final class CookieJar: Sendable {
  private let cookies = Mutex<[String: String]>([:])

  /// Applies every `Set-Cookie` of `response` (Max-Age=0 deletes).
  func take(_ response: ClientResponse) {
    for header in response.headers.values(for: "Set-Cookie") {
      let pair = header.split(separator: ";", maxSplits: 1)[0]
      guard let equals = pair.firstIndex(of: "=") else { continue }
      let name = String(pair[..<equals])
      let value = String(pair[pair.index(after: equals)...])
      cookies.withLock { $0[name] = header.contains("Max-Age=0") ? nil : value }
    }
  }

  func set(_ name: String, _ value: String) { cookies.withLock { $0[name] = value } }
  subscript(name: String) -> String? { cookies.withLock { $0[name] } }
  var header: String? {
    let all = cookies.withLock { $0.map { "\($0.key)=\($0.value)" }.sorted() }
    return all.isEmpty ? nil : all.joined(separator: "; ")
  }
}

/// An in-process app with sign-in on, over a small double behind `FakeGitHubOAuth`, with a session
/// store and clock the test controls, and a record of every response body and log line (for the
/// leak checks).
///
/// ```swift
/// let (h, jar) = try SignInHarness.withJar()
/// try await h.signIn(jar, login: "mona")
/// let page = try await h.get("/?q=swift", jar)
/// ```
struct SignInHarness: Sendable {
  static let https = "https://reposcroll.test"

  let fake: FakeGitHubOAuth
  let app: RepoScrollApp
  let clock: ManualClock
  let store: MemorySessionStore
  let logs: LogLines
  let bodies = LogLines()
  let publicURL: String

  /// A harness with the default settings and one browser's empty cookie jar: how most tests start.
  static func withJar() throws -> (SignInHarness, CookieJar) { (try SignInHarness(), CookieJar()) }

  /// `redisURL` puts sessions in that Redis (shared mode) instead of the test's memory store; `fake`
  /// shares one GitHub between several harnesses (instances).
  init(
    publicURL: String = SignInHarness.https, signIn: Bool = true, redisURL: String? = nil,
    fake: FakeGitHubOAuth? = nil, configure: (inout AppConfiguration) -> Void = { _ in }
  ) throws {
    self.fake = fake ?? FakeGitHubOAuth(double: AppHarness.smallDouble())
    clock = ManualClock(epochSeconds: Date().timeIntervalSince1970)
    let clock = self.clock
    store = MemorySessionStore(time: clock.time)
    logs = LogLines()
    self.publicURL = publicURL
    var configuration = try AppHarness.baseConfiguration(api: AppHarness.inProcessBase)
    if signIn {
      configuration.githubClientID = FakeGitHubOAuth.clientID
      configuration.githubClientSecret = FakeGitHubOAuth.clientSecret
      configuration.githubWebURL = AppHarness.inProcessBase
      configuration.publicURL = publicURL
      configuration.sessionKey = Array(repeating: 7, count: 32)
      configuration.redisURL = redisURL
      configuration.redisTimeoutMS = 2000
    }
    configure(&configuration)
    let logs = self.logs
    app = try RepoScrollApp(
      configuration: configuration, transport: InProcessTransport(handler: self.fake.handler),
      sessionStore: redisURL == nil ? store : nil,
      time: clock.time, log: { logs.append($0) })
  }

  var sessionCookie: String {
    publicURL.hasPrefix("https") ? "__Host-reposcroll_session" : "reposcroll_session"
  }
  var loginCookie: String { publicURL.hasPrefix("https") ? "__Host-reposcroll_login" : "reposcroll_login" }

  /// Sends a request with the jar's cookies and keeps what the answer sets.
  func request(
    _ method: HTTPMethod, _ target: String, _ jar: CookieJar? = nil, headers: HTTPHeaders = [:],
    body: String = ""
  ) async throws -> ClientResponse {
    var headers = headers
    if headers["Host"] == nil { headers.add(name: "Host", value: "reposcroll.test") }
    if let cookie = jar?.header { headers.add(name: "Cookie", value: cookie) }
    var request = HTTPRequest(method: method, target: target, headers: headers)
    request.body = Array(body.utf8)
    let response = try await InProcessTransport.call(app.handler, request)
    jar?.take(response)
    bodies.append(String(decoding: response.body, as: UTF8.self))
    for (name, value) in response.headers where name.lowercased() != "set-cookie" {
      bodies.append("\(name): \(value)")
    }
    expectTrue(response.status.code != 500, "\(method) \(target) answered 500")
    return response
  }

  func get(_ target: String, _ jar: CookieJar? = nil, headers: HTTPHeaders = [:]) async throws
    -> ClientResponse
  {
    try await request(.get, target, jar, headers: headers)
  }

  func text(_ response: ClientResponse) -> String { String(decoding: response.body, as: UTF8.self) }

  /// `/login` as the browser follows it: the authorize URL it redirects to.
  func startLogin(_ jar: CookieJar, returnTo: String? = nil) async throws -> String {
    let target = returnTo.map { "/login?" + URLEncoding.formatQuery([("return_to", $0)]) } ?? "/login"
    let response = try await get(target, jar)
    expectEqual(response.status.code, 302)
    return try #require(response.headers["Location"])
  }

  /// The callback target GitHub redirects back to after the user authorized `login`.
  func authorizedCallback(_ authorizeURL: String, login: String, seesPrivate: Bool = false) throws -> String {
    let query = URLEncoding.parseQuery(authorizeURL.split(separator: "?", maxSplits: 1).last ?? "")
    let state = try #require(query.first { $0.name == "state" }?.value)
    let code = try #require(fake.authorize(authorizeURL, login: login, seesPrivate: seesPrivate))
    return "/login/callback?" + URLEncoding.formatQuery([("code", code), ("state", state)])
  }

  /// The whole sign-in: `/login`, GitHub's Authorize, the callback. Returns the callback's answer.
  @discardableResult
  func signIn(_ jar: CookieJar, login: String, seesPrivate: Bool = false, returnTo: String? = nil)
    async throws
    -> ClientResponse
  {
    let authorize = try await startLogin(jar, returnTo: returnTo)
    let callback = try authorizedCallback(authorize, login: login, seesPrivate: seesPrivate)
    let response = try await get(callback, jar)
    expectEqual(response.status.code, 303, "callback answered \(response.status)")
    return response
  }

  /// The CSRF token in a page's sign-out form.
  static func csrf(in page: String) -> String? {
    page.firstMatch(of: #/name="csrf" value="([A-Za-z0-9_-]+)"/#).map { String($0.1) }
  }

  /// Waits (bounded) until `condition` holds, for effects that run in the background.
  func eventually(_ condition: () -> Bool) async throws -> Bool {
    await TestSupport.eventually(condition)
  }
}
