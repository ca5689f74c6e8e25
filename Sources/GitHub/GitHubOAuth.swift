import Credentials
import CurlClient
import Encodings
import HTTP

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// GitHub's OAuth web application flow, against `{web}` and `{api}`: the authorize URL (PKCE S256,
/// no scope), the code exchange, the refresh of an expiring token, the user behind a token, and
/// revocation. Every failure is a typed `OAuthError`; upstream answers are bounded in size and time
/// and never trusted.
///
/// ```swift
/// let oauth = GitHubOAuth(configuration: c, transport: curl)
/// let url = oauth.authorizeURL(redirectURI: callback, state: state, codeChallenge: PKCE.challenge(verifier: v))
/// // … the browser comes back to `callback?code=…&state=…` …
/// let grant = try await oauth.exchange(code: code, verifier: v, redirectURI: callback)
/// let user = try await oauth.user(token: grant.accessToken)
/// ```
public final class GitHubOAuth: Sendable {
  /// Largest answer read from GitHub: its OAuth answers are a few hundred bytes, `/user` about 2 KB.
  static let maxResponseBytes = 64 * 1024
  /// Longest upstream text kept in an error.
  static let maxMessage = 200

  private let configuration: GitHubOAuthConfiguration
  private let transport: any HTTPClientTransport
  private let webBase: String
  private let apiBase: String
  /// Removes the client secret from anything upstream echoes.
  private let redactor: Redactor

  /// A client for the OAuth app `configuration` describes, calling through `transport`.
  public init(configuration: GitHubOAuthConfiguration, transport: any HTTPClientTransport) {
    self.configuration = configuration
    self.transport = transport
    webBase = Self.trimmed(configuration.webBase)
    apiBase = Self.trimmed(configuration.apiBase)
    redactor = Redactor(secret: configuration.clientSecret)
  }

  /// `{web}/login/oauth/authorize?client_id=…&redirect_uri=…&state=…&code_challenge=…&code_challenge_method=S256`.
  /// It asks for no scope: public data only (a `repo` scope granted earlier to the same app still
  /// comes back in `X-OAuth-Scopes`).
  public func authorizeURL(redirectURI: String, state: String, codeChallenge: String) -> String {
    webBase + "/login/oauth/authorize?"
      + URLEncoding.formatQuery([
        ("client_id", configuration.clientID), ("redirect_uri", redirectURI), ("state", state),
        ("code_challenge", codeChallenge), ("code_challenge_method", "S256"),
      ])
  }

  /// `POST {web}/login/oauth/access_token` with `Accept: application/json` and a form of client_id,
  /// client_secret, code, redirect_uri and code_verifier. GitHub reports a bad code, client or
  /// redirect URI as 200 with error JSON; each becomes its own case.
  public func exchange(code: String, verifier: String, redirectURI: String) async throws(OAuthError)
    -> OAuthGrant
  {
    try await tokenRequest(
      [
        ("client_id", configuration.clientID), ("client_secret", configuration.clientSecret), ("code", code),
        ("redirect_uri", redirectURI), ("code_verifier", verifier),
      ], redactor: redactor.adding(code).adding(verifier))
  }

  /// `POST {web}/login/oauth/access_token` with `grant_type=refresh_token`: a new access token and
  /// a new refresh token for a single-use refresh token. GitHub rotates both at once: after this
  /// call the old refresh token and the old access token no longer work, so the caller must keep
  /// the new pair (and must never refresh one token twice). A used, revoked or expired refresh
  /// token is `.badRefreshToken`.
  public func refresh(refreshToken: String) async throws(OAuthError) -> OAuthGrant {
    guard Self.isTokenShaped(refreshToken) else { throw .badRefreshToken }
    return try await tokenRequest(
      [
        ("client_id", configuration.clientID), ("client_secret", configuration.clientSecret),
        ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
      ], redactor: redactor.adding(refreshToken))
  }

  /// One call to the token endpoint with `form`, its answer checked: a token (and, for an expiring
  /// one, positive lifetimes and a refresh token), or GitHub's error as its case.
  private func tokenRequest(_ form: [(String, String)], redactor: Redactor) async throws(OAuthError)
    -> OAuthGrant
  {
    let headers: HTTPHeaders = [
      "Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded",
      "User-Agent": GitHubClient.headerSafe(configuration.userAgent),
    ]
    let response = try await send(
      ClientRequest(
        url: webBase + "/login/oauth/access_token", method: .post, headers: headers,
        body: Array(URLEncoding.formatQuery(form).utf8)),
      redactor: redactor)
    let status = response.status.code
    guard status == 200 else { throw Self.statusError(status) }
    let answer: TokenAnswer = try Self.decode(response.body)
    if let error = answer.error {
      throw Self.flowError(error, description: answer.error_description, redactor: redactor)
    }
    guard let token = answer.access_token, Self.isTokenShaped(token) else {
      throw .hostile("no usable access_token in the answer")
    }
    if let type = answer.token_type, type.lowercased() != "bearer" {
      throw .hostile("token_type is not bearer")
    }
    var grant = OAuthGrant(accessToken: token, scopes: Self.scopes(fromHeader: answer.scope ?? ""))
    if let expiresIn = answer.expires_in {
      guard let seconds = expiresIn.seconds else { throw .hostile("expires_in is not a positive number") }
      grant.expiresIn = seconds
      if let refresh = answer.refresh_token {
        guard Self.isTokenShaped(refresh), refresh != token else { throw .hostile("no usable refresh_token") }
        guard let refreshSeconds = answer.refresh_token_expires_in?.seconds else {
          throw .hostile("refresh_token_expires_in is not a positive number")
        }
        grant.refreshToken = refresh
        grant.refreshTokenExpiresIn = refreshSeconds
      }
    }
    return grant
  }

  /// `GET {api}/user` with the token: login, id and avatar, and the token's scopes from `X-OAuth-Scopes`
  /// (no such header: `access` is `.unknown`, a token that may see private repositories).
  public func user(token: String) async throws(OAuthError) -> GitHubUser {
    guard Self.isTokenShaped(token) else { throw .unauthorized }
    let headers: HTTPHeaders = [
      "Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
      "User-Agent": GitHubClient.headerSafe(configuration.userAgent), "Authorization": "Bearer \(token)",
    ]
    let response = try await send(
      ClientRequest(url: apiBase + "/user", headers: headers), redactor: redactor.adding(token))
    let status = response.status.code
    if status == 401 { throw .unauthorized }
    guard status == 200 else { throw Self.statusError(status) }
    let user: UserAnswer = try Self.decode(response.body)
    guard let login = user.login, isValidOwnerName(login) else {
      throw .hostile("login is not a GitHub login")
    }
    guard let id = user.id, id > 0 else { throw .hostile("id is not a positive integer") }
    let avatar = UpstreamText(redactor: redactor.adding(token)).clean(user.avatar_url ?? "")
    let scopesHeader = response.headers["x-oauth-scopes"]
    return GitHubUser(
      login: login, id: id, avatarURL: String(avatar.prefix(2048)),
      scopes: Self.scopes(fromHeader: scopesHeader ?? ""),
      access: RepositoryAccess(scopesHeader: scopesHeader))
  }

  /// `DELETE {api}/applications/{client_id}/token` with Basic client_id:client_secret and
  /// `{"access_token": token}`. GitHub answers 204; a 404 (unknown or already revoked token, or
  /// credentials GitHub does not know) is `.unauthorized`.
  public func revoke(token: String) async throws(OAuthError) {
    guard Self.isTokenShaped(token) else { throw .unauthorized }
    let basic = Base64.encode(Array((configuration.clientID + ":" + configuration.clientSecret).utf8))
    let headers: HTTPHeaders = [
      "Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
      "Content-Type": "application/json", "User-Agent": GitHubClient.headerSafe(configuration.userAgent),
      "Authorization": "Basic \(basic)",
    ]
    // A token-shaped value has no character JSON must escape.
    let body = Array("{\"access_token\":\"\(token)\"}".utf8)
    let url = apiBase + "/applications/" + URLEncoding.percentEncode(configuration.clientID) + "/token"
    let response = try await send(
      ClientRequest(url: url, method: .delete, headers: headers, body: body), redactor: redactor.adding(token)
    )
    switch response.status.code {
    case 200..<300: return
    case 404: throw .unauthorized
    case 401, 403: throw .incorrectClientCredentials
    case let status: throw Self.statusError(status)
    }
  }

  // MARK: - Helpers

  /// Scopes from a comma-separated list (`X-OAuth-Scopes`, or the exchange's `scope` field).
  static func scopes(fromHeader value: String) -> [String] {
    value.split(separator: ",").map { String($0.trimmingWhitespace) }.filter { !$0.isEmpty }.prefix(64).map {
      String(UpstreamText.withoutControls($0).prefix(64))
    }
  }

  /// An access token as GitHub issues them: 1…255 visible ASCII characters without quotes,
  /// backslashes or spaces (`gho_` + 36 alphanumerics today).
  static func isTokenShaped(_ token: String) -> Bool {
    (1...255).contains(token.utf8.count)
      && token.utf8.allSatisfy {
        $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
      }
  }

  /// The call with the configured timeout and size bound; transport failures become `.unavailable`
  /// or `.hostile`, with nothing secret in them.
  private func send(_ request: ClientRequest, redactor: Redactor) async throws(OAuthError) -> ClientResponse {
    var request = request
    request.timeout = configuration.timeout
    request.maxResponseBytes = Self.maxResponseBytes
    do {
      return try await transport.execute(request)
    } catch {
      switch error {
      case .timedOut: throw .unavailable("GitHub did not answer in time")
      case .tooLarge(let limit): throw .hostile("answer larger than \(limit) bytes")
      case .cancelled: throw .unavailable("cancelled")
      case .invalidURL: throw .unavailable("the configured GitHub URL is not an http(s) URL")
      case .cannotResolve, .cannotConnect, .tls, .other: throw .unavailable("GitHub could not be reached")
      }
    }
  }

  private static func statusError(_ status: Int) -> OAuthError {
    status >= 500 || status == 429 || status == 403
      ? .unavailable("GitHub answered \(status)") : .hostile("unexpected status \(status)")
  }

  /// The case for an `error` of GitHub's flow (its documented codes, and RFC 6749's for PKCE).
  private static func flowError(_ code: String, description: String?, redactor: Redactor) -> OAuthError {
    let text = String(UpstreamText(redactor: redactor).clean(description ?? code).prefix(maxMessage))
    switch code {
    case "bad_verification_code": return .badVerificationCode(text)
    case "incorrect_client_credentials": return .incorrectClientCredentials
    case "redirect_uri_mismatch": return .redirectURIMismatch
    case "access_denied": return .accessDenied
    case "invalid_grant", "bad_code_verifier", "invalid_code_verifier": return .badVerifier
    case "bad_refresh_token": return .badRefreshToken
    case "unverified_user_email": return .unavailable("the GitHub account has no verified email address")
    default: return .hostile("unknown error code")
    }
  }

  private static func decode<T: Decodable>(_ body: [UInt8]) throws(OAuthError) -> T {
    guard body.count <= maxResponseBytes else { throw .hostile("answer too large") }
    do {
      return try JSONDecoder().decode(T.self, from: Data(body))
    } catch {
      throw .hostile("not the JSON GitHub documents")
    }
  }

  private static func trimmed(_ base: String) -> String {
    var result = String(base.trimmingWhitespace)
    while result.hasSuffix("/") { result.removeLast() }
    return result
  }

  // Field names as GitHub spells them; every one optional, so an error answer decodes too.
  // swift-format-ignore: AlwaysUseLowerCamelCase
  private struct TokenAnswer: Decodable {
    var access_token: String?
    var token_type: String?
    var scope: String?
    var expires_in: Lifetime?
    var refresh_token: String?
    var refresh_token_expires_in: Lifetime?
    var error: String?
    var error_description: String?
  }

  /// A lifetime in seconds as GitHub sends it: a JSON number today, a numeric string in its first
  /// announcement. Anything else, zero or negative has no `seconds`; huge values saturate at ten years.
  private struct Lifetime: Decodable {
    var seconds: Int?

    init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      let value: Double?
      if let number = try? container.decode(Double.self) {
        value = number
      } else if let text = try? container.decode(String.self), text.utf8.count <= 20 {
        value = Double(text)
      } else {
        value = nil
      }
      guard let value, value.isFinite, value >= 1 else { return }
      seconds = Int(min(value, 10 * 366 * 86_400))
    }
  }

  // swift-format-ignore: AlwaysUseLowerCamelCase
  private struct UserAnswer: Decodable {
    var login: String?
    var id: Int?
    var avatar_url: String?
  }
}
