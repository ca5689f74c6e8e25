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
