import Credentials
import CurlClient
import Digests
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

/// PKCE (RFC 7636) with the S256 method, the only one GitHub accepts (the algorithm is
/// `Digests.PKCEChallenge`, shared with the GitHub double).
public enum PKCE {
  /// `BASE64URL(SHA256(ASCII(verifier)))` without padding.
  public static func challenge(verifier: String) -> String { PKCEChallenge.s256(verifier: verifier) }

  /// Whether `verifier` has RFC 7636's shape: 43 to 128 characters of `A-Z a-z 0-9 - . _ ~`.
  public static func isValidVerifier(_ verifier: String) -> Bool { PKCEChallenge.isValidVerifier(verifier) }
}
