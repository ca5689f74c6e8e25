import Credentials
import CurlClient
import Digests
import Encodings
import Foundation
import GitHub
import GitHubDouble
import HTTP
import HTTPServer
import Synchronization

@testable import App

/// GitHub's OAuth side as a test fake in front of the double (which serves the API): codes for a
/// login, the token exchange with single-use codes and a PKCE check, `GET /user`, revocation, and
/// 401 for a revoked token on any API call. It reads parameters from the query or the form/JSON body,
/// so it serves both the stand-in client and the real one. Every API call is recorded with the
/// identity it was made as (a login, or "anonymous").
///
/// Until the double's own OAuth side is merged, this is what the in-process sign-in tests sign in
/// against.
final class FakeGitHubOAuth: Sendable {
  static let clientID = "Iv1.test-client"
  static let clientSecret = "test-secret-do-not-leak"

  struct Grant: Sendable {
    var login: String
    var userID: Int
    var seesPrivate: Bool
    var redirectURI: String
    var challenge: String
  }

  struct State: Sendable {
    var codes: [String: Grant] = [:]
    var tokens: [String: Grant] = [:]
    var revoked: Set<String> = []
    var limited: Set<String> = []
    var calls: [(path: String, identity: String)] = []
    var tokenEndpointFault: Fault?
  }

  /// How the token endpoint misbehaves.
  enum Fault: Sendable {
    case down
    case slow
    case hostile
  }

  let double: GitHubDouble
  private let state = Mutex(State())
  private let nextID = Atomic<Int>(1000)

  init(double: GitHubDouble) { self.double = double }

  /// What GitHub's authorize page does when a user presses Authorize: a code for `login`, bound to the
  /// redirect URI and PKCE challenge of the authorize URL.
  func authorize(_ authorizeURL: String, login: String, seesPrivate: Bool = false) -> String? {
    let query = URLEncoding.parseQuery(authorizeURL.split(separator: "?", maxSplits: 1).last ?? "")
    func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
    guard value("client_id") == Self.clientID, let redirect = value("redirect_uri"),
      let challenge = value("code_challenge"), value("code_challenge_method") == "S256"
    else { return nil }
    let code = "code-" + UUID().uuidString.prefix(12)
    let id = Self.userID(login)
    state.withLock {
      $0.codes[String(code)] = Grant(
        login: login, userID: id, seesPrivate: seesPrivate, redirectURI: redirect, challenge: challenge)
    }
    return String(code)
  }

  /// A stable numeric id per login.
  static func userID(_ login: String) -> Int {
    5000 + Int(login.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) % 100_000 })
  }

  /// Revokes every token of `login` (as an eleventh sign-in or the user would).
  func revokeAll(of login: String) {
    state.withLock { s in
      for (token, grant) in s.tokens where grant.login == login { s.revoked.insert(token) }
    }
  }

  /// Makes every search with `login`'s tokens answer with a spent rate limit.
  func limit(_ login: String) {
    state.withLock { s in
      for (token, grant) in s.tokens where grant.login == login { s.limited.insert(token) }
    }
  }

  func setTokenEndpointFault(_ fault: Fault?) { state.withLock { $0.tokenEndpointFault = fault } }

  /// Tokens issued so far, and whether each is revoked.
  var tokens: [(token: String, login: String, revoked: Bool)] {
    state.withLock { s in s.tokens.map { ($0.key, $0.value.login, s.revoked.contains($0.key)) } }
  }

  /// API calls (path without query) by identity.
  var calls: [(path: String, identity: String)] { state.withLock { $0.calls } }

  var handler: HTTPHandler {
    { [self] request, context in try await handle(request, context) }
  }

  private func parameters(_ request: HTTPRequest) -> [String: String] {
    var all: [String: String] = [:]
    for item in request.queryItems { all[item.name] = item.value }
    let body = String(decoding: request.body, as: UTF8.self)
    if body.hasPrefix("{") {
      for match in body.matches(of: #/"(\w+)"\s*:\s*"([^"]*)"/#) { all[String(match.1)] = String(match.2) }
    } else {
      for item in URLEncoding.parseQuery(body) { all[item.name] = item.value }
    }
    return all
  }

  private static func json(_ status: HTTPStatus, _ text: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
    var headers = headers
    headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
    return HTTPResponse(status: status, headers: headers, body: .bytes(Array(text.utf8)))
  }

  private func handle(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
    let path = String(request.path)
    let p = parameters(request)
    if path == "/login/oauth/access_token" && request.method == .post {
      switch state.withLock({ $0.tokenEndpointFault }) {
      case .down?: return .text(.serviceUnavailable, "unavailable")
      case .slow?: throw ClientError.timedOut
      case .hostile?: return Self.json(.ok, "{\"access_token\": 12, \"scope\": [\"<script>\"]}")
      case nil: break
      }
      func error(_ code: String) -> HTTPResponse {
        Self.json(
          .ok, "{\"error\":\"\(code)\",\"error_description\":\"\(code)\",\"error_uri\":\"https://docs\"}")
      }
      guard p["client_id"] == Self.clientID, p["client_secret"] == Self.clientSecret else {
        return error("incorrect_client_credentials")
      }
      let grant = state.withLock { s -> Grant? in
        guard let code = p["code"] else { return nil }
        return s.codes.removeValue(forKey: code)  // single use
      }
      guard let grant else { return error("bad_verification_code") }
      guard p["redirect_uri"] == grant.redirectURI else { return error("redirect_uri_mismatch") }
      guard let verifier = p["code_verifier"], PKCEChallenge.s256(verifier: verifier) == grant.challenge
      else {
        return error("bad_verifier")
      }
      let token = "gho_" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(36))
      state.withLock { $0.tokens[token] = grant }
      return Self.json(
        .ok,
        "{\"access_token\":\"\(token)\",\"scope\":\"\(grant.seesPrivate ? "repo" : "")\",\"token_type\":\"bearer\"}"
      )
    }
    var token: String?
    if let auth = request.headers["Authorization"], auth.hasPrefix("Bearer ") {
      token = String(auth.dropFirst(7))
    }
    let (grant, revoked, limited) = state.withLock { s in
      (
        token.flatMap { s.tokens[$0] }, token.map { s.revoked.contains($0) } ?? false,
        token.map { s.limited.contains($0) } ?? false
      )
    }
    if path.hasPrefix("/applications/") && request.method == .delete {
      guard let presented = p["access_token"] else { return .text(.unprocessableContent, "no token") }
      state.withLock { _ = $0.revoked.insert(presented) }
      return HTTPResponse(status: .noContent)
    }
    state.withLock { $0.calls.append((path, grant?.login ?? (token == nil ? "anonymous" : "unknown"))) }
    if token != nil && (grant == nil || revoked) {
      return Self.json(
        .unauthorized, "{\"message\":\"Bad credentials\",\"documentation_url\":\"https://docs\"}")
    }
    if path == "/user", let grant {
      return Self.json(
        .ok,
        "{\"login\":\"\(grant.login)\",\"id\":\(grant.userID),\"avatar_url\":\"http://github.test/u/\(grant.userID)\"}",
        headers: ["X-OAuth-Scopes": grant.seesPrivate ? "repo" : ""])
    }
    if limited, path.hasPrefix("/search/") {
      let reset = Int(Date().timeIntervalSince1970) + 60
      return Self.json(
        .forbidden, "{\"message\":\"API rate limit exceeded for user ID \(grant?.userID ?? 0).\"}",
        headers: [
          "x-ratelimit-limit": "30", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "\(reset)",
          "x-ratelimit-resource": "search", "x-ratelimit-used": "30",
        ])
    }
    // Everything else is the double's: a reader's token is not the server's, so it goes on as anonymous.
    var forwarded = request
    forwarded.headers.remove(name: "Authorization")
    return try await double.handler(forwarded, context)
  }
}
