import CurlClient
import HTTP

/// Settings for `GitHubOAuth`. The client secret is redacted from every description and mirror.
public struct GitHubOAuthConfiguration: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// `https://github.com`, or a GitHub Enterprise Server host: where readers authorize and codes are exchanged.
  public var webBase = "https://github.com"
  /// The REST base, for `GET /user` and `DELETE /applications/{client_id}/token`.
  public var apiBase = "https://api.github.com"
  /// The OAuth app's client id (public: it is in every authorize URL).
  public var clientID: String
  /// The OAuth app's client secret; never logged, rendered or in a description.
  public var clientSecret: String
  /// `User-Agent` sent with every call (GitHub answers 403 without one).
  public var userAgent = CurlClientConfiguration.defaultUserAgent
  /// Total time allowed for each call to GitHub.
  public var timeout: Duration = .seconds(10)

  /// The OAuth app `clientID` on github.com; set `webBase` and `apiBase` for GitHub Enterprise Server
  /// or a double.
  public init(clientID: String, clientSecret: String) {
    self.clientID = clientID
    self.clientSecret = clientSecret
  }

  /// A summary with the secret redacted.
  public var description: String {
    "GitHubOAuthConfiguration(webBase: \(webBase), apiBase: \(apiBase), clientID: \(clientID), "
      + "clientSecret: [redacted], userAgent: \(userAgent))"
  }

  /// Same as `description`, so `debugPrint` cannot leak the secret either.
  public var debugDescription: String { description }

  /// A mirror without the secret, so `dump` cannot leak it.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "webBase": webBase, "apiBase": apiBase, "clientID": clientID, "clientSecret": "[redacted]",
        "userAgent": userAgent, "timeout": timeout,
      ])
  }
}

/// The signed-in user, as `GET /user` describes them, with the token's scopes from `X-OAuth-Scopes`
/// and what that header says the token may see (no header at all: `.unknown`).
public struct GitHubUser: Sendable, Equatable {
  /// The login (checked against GitHub's login rules).
  public var login: String
  /// The numeric user id (positive).
  public var id: Int
  /// The avatar URL GitHub gave (cleaned of control characters; may be empty).
  public var avatarURL: String
  /// The token's OAuth scopes; empty for a token granted no scope, or for one without scopes
  /// (GitHub App user tokens, fine-grained tokens: then `access` is `.unknown`).
  public var scopes: [String]
  /// What the token may see: `.unknown` when `/user` sent no `X-OAuth-Scopes` header.
  public var access: RepositoryAccess

  /// A user from its parts; `access` defaults to what `scopes` grant (a known list of scopes).
  public init(login: String, id: Int, avatarURL: String, scopes: [String], access: RepositoryAccess? = nil) {
    self.login = login
    self.id = id
    self.avatarURL = avatarURL
    self.scopes = scopes
    self.access = access ?? RepositoryAccess(scopes: scopes)
  }
}

/// What a code exchange or a refresh gives: the access token and its scopes and, for a token that
/// expires (a GitHub App's user token), its lifetime and the refresh token that renews it. Its
/// description hides both tokens.
public struct OAuthGrant: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// The OAuth access token.
  public var accessToken: String
  /// The scopes GitHub granted (the `scope` field, comma-separated there; empty for a GitHub App).
  public var scopes: [String]
  /// Seconds until the access token expires (`expires_in`); nil for a token that does not expire.
  public var expiresIn: Int?
  /// The single-use refresh token (`refresh_token`, `ghr_…`); nil when the token does not expire.
  public var refreshToken: String?
  /// Seconds until the refresh token expires (`refresh_token_expires_in`).
  public var refreshTokenExpiresIn: Int?

  /// A grant from its parts.
  public init(
    accessToken: String, scopes: [String], expiresIn: Int? = nil, refreshToken: String? = nil,
    refreshTokenExpiresIn: Int? = nil
  ) {
    self.accessToken = accessToken
    self.scopes = scopes
    self.expiresIn = expiresIn
    self.refreshToken = refreshToken
    self.refreshTokenExpiresIn = refreshTokenExpiresIn
  }

  /// `OAuthGrant(accessToken: [redacted], scopes: […], …)`.
  public var description: String {
    "OAuthGrant(accessToken: [redacted], scopes: \(scopes), expiresIn: \(expiresIn.map(String.init) ?? "nil"), "
      + "refreshToken: \(refreshToken == nil ? "nil" : "[redacted]"), "
      + "refreshTokenExpiresIn: \(refreshTokenExpiresIn.map(String.init) ?? "nil"))"
  }

  /// Same as `description`.
  public var debugDescription: String { description }

  /// A mirror without the tokens.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "accessToken": "[redacted]", "scopes": scopes, "expiresIn": expiresIn as Any,
        "refreshToken": refreshToken == nil ? "nil" : "[redacted]",
        "refreshTokenExpiresIn": refreshTokenExpiresIn as Any,
      ])
  }
}

/// Why a step of the OAuth web flow failed. No case carries the client secret, a code, a verifier
/// or a token: texts from upstream are redacted, cleaned of control characters and cut short.
public enum OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The user pressed Cancel (`error=access_denied` on the callback, or in an exchange answer).
  case accessDenied
  /// The code is expired, replayed or unknown (GitHub answers this with status 200 and error JSON).
  case badVerificationCode(String)
  /// GitHub did not accept the client id and secret.
  case incorrectClientCredentials
  /// The redirect URI is not the one registered for the app (or not the one the code was issued for).
  case redirectURIMismatch
  /// The PKCE verifier does not match the challenge the code was issued for.
  case badVerifier
  /// GitHub refused a refresh token: used already, revoked, expired or unknown (`bad_refresh_token`,
  /// status 200 with error JSON). The token cannot be renewed; the reader must sign in again.
  case badRefreshToken
  /// GitHub answered 401 to the token (`GET /user`), or does not know it (`revoke`).
  case unauthorized
  /// GitHub could not be reached in time, or answered with a 5xx or a refusal to serve now.
  case unavailable(String)
  /// A body that is not what GitHub documents (not JSON, wrong types, too large, bad values).
  case hostile(String)

  /// A short explanation for logs; never a secret.
  public var description: String {
    switch self {
    case .accessDenied: return "the user denied access"
    case .badVerificationCode(let message): return "bad verification code: \(message)"
    case .incorrectClientCredentials: return "GitHub refused the client id or secret"
    case .redirectURIMismatch: return "the redirect URI does not match the app's"
    case .badVerifier: return "GitHub refused the PKCE verifier"
    case .badRefreshToken: return "GitHub refused the refresh token (used, revoked or expired)"
    case .unauthorized: return "GitHub did not accept the token"
    case .unavailable(let message): return "GitHub unavailable: \(message)"
    case .hostile(let message): return "unexpected answer from GitHub: \(message)"
    }
  }
}

/// PKCE (RFC 7636) with the S256 method, the only one GitHub accepts (the algorithm is
/// `HTTP.PKCEChallenge`, shared with the GitHub double).
public enum PKCE {
  /// `BASE64URL(SHA256(ASCII(verifier)))` without padding.
  public static func challenge(verifier: String) -> String { PKCEChallenge.s256(verifier: verifier) }

  /// Whether `verifier` has RFC 7636's shape: 43 to 128 characters of `A-Z a-z 0-9 - . _ ~`.
  public static func isValidVerifier(_ verifier: String) -> Bool { PKCEChallenge.isValidVerifier(verifier) }
}
