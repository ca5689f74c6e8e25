// TEMPORARY STAND-IN for the GitHub side of issue 18 (/work/wt/SIGNIN-INTERFACE.md), until the
// `signin-github` branch merges: the lead deletes this file then, together with the "CSodium"
// dependency of App in Package.swift and the one `standInRegister` line in RepoScrollApp.init.
//
// It declares exactly the interface's names with a minimal working implementation:
// - `as reader:` calls go through a per-reader `GitHubClient` made with the reader's token over the
//   app's transport (no shared cache or ledger for readers), and a 401 there becomes `.unauthorized`;
// - `GitHubError.unauthorized` is a static value here (a real case after merge), so App code compares
//   with `==`, which works for both;
// - `GitHubOAuth` sends its form parameters in the query string (ClientRequest has no body yet), which
//   the tests' fake OAuth server accepts; the real client sends GitHub's form and JSON bodies.

import CSodium
import CurlClient
import GitHub
import HTTP
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// A signed-in reader's GitHub identity (stand-in of GitHub's type).
struct ReaderCredential: Sendable, Hashable, CustomStringConvertible {
  var login: String
  var userID: Int
  var token: String
  var seesPrivate: Bool
  init(login: String, userID: Int, token: String, seesPrivate: Bool) {
    self.login = login
    self.userID = userID
    self.token = token
    self.seesPrivate = seesPrivate
  }
  var description: String { "ReaderCredential(login: \(login), userID: \(userID), token: [redacted])" }
}

extension GitHubError {
  /// Stand-in of the real `case unauthorized`.
  static let unauthorized = GitHubError.forbidden("stand-in: 401 Bad credentials")
}

/// Per-reader clients of each app client (stand-in only; the real client keeps readers itself).
private final class StandInReaders: Sendable {
  let configuration: GitHubConfiguration
  let transport: any HTTPClientTransport
  let clients = Mutex<[String: GitHubClient]>([:])
  init(configuration: GitHubConfiguration, transport: any HTTPClientTransport) {
    self.configuration = configuration
    self.transport = transport
  }
  func client(for reader: ReaderCredential) -> GitHubClient {
    clients.withLock { clients in
      if let client = clients[reader.token] { return client }
      var configuration = self.configuration
      configuration.token = reader.token
      let client = GitHubClient(configuration: configuration, transport: transport)
      if clients.count > 1000 { clients.removeAll() }
      clients[reader.token] = client
      return client
    }
  }
}

private let standInRegistry = Mutex<[ObjectIdentifier: StandInReaders]>([:])

extension GitHubClient {
  /// Stand-in only: remembers how to make this client's per-reader clients.
  func standInRegister(configuration: GitHubConfiguration, transport: any HTTPClientTransport) {
    let readers = StandInReaders(configuration: configuration, transport: transport)
    standInRegistry.withLock { $0[ObjectIdentifier(self)] = readers }
  }

  private func readerClient(_ reader: ReaderCredential?) -> GitHubClient {
    guard let reader, let readers = standInRegistry.withLock({ $0[ObjectIdentifier(self)] }) else {
      return self
    }
    return readers.client(for: reader)
  }

  private static func mapped(_ error: GitHubError, reader: ReaderCredential?) -> GitHubError {
    if reader != nil, case .forbidden(let message) = error, message.contains("Bad credentials") {
      return .unauthorized
    }
    return error
  }

  func searchRepositories(
    _ query: SearchQuery, page: Int, perPage: Int = 100, reload: Bool = false, as reader: ReaderCredential?
  ) async throws(GitHubError) -> SearchPage {
    do {
      return try await readerClient(reader).searchRepositories(
        query, page: page, perPage: perPage, reload: reload)
    } catch {
      throw Self.mapped(error, reader: reader)
    }
  }

  func starHistory(owner: String, repo: String, perPage: Int = 30, as reader: ReaderCredential?)
    async throws(GitHubError) -> StarHistory
  {
    do {
      return try await readerClient(reader).starHistory(owner: owner, repo: repo, perPage: perPage)
    } catch {
      throw Self.mapped(error, reader: reader)
    }
  }

  func rateLimitSnapshots(for reader: ReaderCredential?) async -> [RateLimitSnapshot] {
    await readerClient(reader).rateLimitSnapshots()
  }
}

struct GitHubOAuthConfiguration: Sendable {
  var webBase: String
  var apiBase: String
  var clientID: String
  var clientSecret: String
  var userAgent: String
  init(webBase: String, apiBase: String, clientID: String, clientSecret: String, userAgent: String) {
    self.webBase = webBase
    self.apiBase = apiBase
    self.clientID = clientID
    self.clientSecret = clientSecret
    self.userAgent = userAgent
  }
}

struct GitHubUser: Sendable, Equatable {
  var login: String
  var id: Int
  var avatarURL: String
  var scopes: [String]
}

struct OAuthGrant: Sendable {
  var accessToken: String
  var scopes: [String]
}

enum OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
  case accessDenied
  case badVerificationCode(String)
  case incorrectClientCredentials
  case redirectURIMismatch
  case badVerifier
  case unauthorized
  case unavailable(String)
  case hostile(String)
  var description: String {
    switch self {
    case .accessDenied: return "access denied"
    case .badVerificationCode(let m): return "bad verification code: \(m)"
    case .incorrectClientCredentials: return "incorrect client credentials"
    case .redirectURIMismatch: return "redirect URI mismatch"
    case .badVerifier: return "bad PKCE verifier"
    case .unauthorized: return "token refused (401)"
    case .unavailable(let m): return "GitHub unavailable: \(m)"
    case .hostile(let m): return "unexpected answer: \(m)"
    }
  }
}

final class GitHubOAuth: Sendable {
  let configuration: GitHubOAuthConfiguration
  let transport: any HTTPClientTransport

  init(configuration: GitHubOAuthConfiguration, transport: any HTTPClientTransport) {
    self.configuration = configuration
    self.transport = transport
  }

  func authorizeURL(redirectURI: String, state: String, codeChallenge: String) -> String {
    configuration.webBase + "/login/oauth/authorize?"
      + URLEncoding.formatQuery([
        ("client_id", configuration.clientID), ("redirect_uri", redirectURI), ("state", state),
        ("code_challenge", codeChallenge), ("code_challenge_method", "S256"),
      ])
  }

  private struct TokenAnswer: Decodable {
    var access_token: String?
    var scope: String?
    var error: String?
    var error_description: String?
  }

  private struct UserAnswer: Decodable {
    var login: String
    var id: Int
    var avatar_url: String?
  }

  private func send(_ request: ClientRequest) async throws(OAuthError) -> ClientResponse {
    var request = request
    request.timeout = request.timeout ?? .seconds(10)
    request.maxResponseBytes = 64 * 1024
    request.headers.add(name: "User-Agent", value: configuration.userAgent)
    request.headers.add(name: "Accept", value: "application/json")
    do {
      let response = try await transport.execute(request)
      if response.status.code >= 500 { throw OAuthError.unavailable("status \(response.status.code)") }
      return response
    } catch let error as OAuthError {
      throw error
    } catch {
      throw .unavailable("\(error)")
    }
  }

  func exchange(code: String, verifier: String, redirectURI: String) async throws(OAuthError) -> OAuthGrant {
    let url =
      configuration.webBase + "/login/oauth/access_token?"
      + URLEncoding.formatQuery([
        ("client_id", configuration.clientID), ("client_secret", configuration.clientSecret), ("code", code),
        ("redirect_uri", redirectURI), ("code_verifier", verifier),
      ])
    let response = try await send(ClientRequest(url: url, method: .post))
    guard response.status.code == 200,
      let answer = try? JSONDecoder().decode(TokenAnswer.self, from: Data(response.body))
    else { throw .hostile("token answer \(response.status.code)") }
    if let error = answer.error {
      switch error {
      case "bad_verification_code": throw .badVerificationCode(answer.error_description ?? error)
      case "incorrect_client_credentials": throw .incorrectClientCredentials
      case "redirect_uri_mismatch": throw .redirectURIMismatch
      case "bad_verifier", "invalid_grant": throw .badVerifier
      case "access_denied": throw .accessDenied
      default: throw .hostile("error \(error.prefix(40))")
      }
    }
    guard let token = answer.access_token, !token.isEmpty, token.utf8.count <= 255,
      token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f })
    else { throw .hostile("no access token") }
    let scopes = (answer.scope ?? "").split(separator: ",").map { String($0) }
    return OAuthGrant(accessToken: token, scopes: scopes)
  }

  func user(token: String) async throws(OAuthError) -> GitHubUser {
    let response = try await send(
      ClientRequest(url: configuration.apiBase + "/user", headers: ["Authorization": "Bearer \(token)"]))
    if response.status.code == 401 { throw .unauthorized }
    guard response.status.code == 200,
      let answer = try? JSONDecoder().decode(UserAnswer.self, from: Data(response.body)),
      answer.id > 0, (1...39).contains(answer.login.utf8.count)
    else { throw .hostile("user answer \(response.status.code)") }
    let scopes = (response.headers["X-OAuth-Scopes"] ?? "").split(separator: ",").map {
      String($0.trimmingWhitespace)
    }.filter { !$0.isEmpty }
    return GitHubUser(login: answer.login, id: answer.id, avatarURL: answer.avatar_url ?? "", scopes: scopes)
  }

  func revoke(token: String) async throws(OAuthError) {
    let basic = Data("\(configuration.clientID):\(configuration.clientSecret)".utf8).base64EncodedString()
    let url =
      configuration.apiBase + "/applications/\(URLEncoding.percentEncode(configuration.clientID))/token?"
      + URLEncoding.formatQuery([("access_token", token)])
    let response = try await send(
      ClientRequest(url: url, method: .delete, headers: ["Authorization": "Basic \(basic)"]))
    guard response.status.code == 204 || response.status.code == 404 else {
      throw .hostile("revoke answer \(response.status.code)")
    }
  }

  static func seesPrivate(scopes: [String]) -> Bool { scopes.contains("repo") }
}

enum PKCE {
  /// base64url(SHA-256(verifier)) without padding.
  static func challenge(verifier: String) -> String {
    _ = sodium_init()
    var digest = [UInt8](repeating: 0, count: 32)
    let bytes = Array(verifier.utf8)
    _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
    let base64 = Data(digest).base64EncodedString()
    return String(
      base64.compactMap { c -> Character? in c == "+" ? "-" : c == "/" ? "_" : c == "=" ? nil : c })
  }
}
