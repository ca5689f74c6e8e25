import Credentials

/// What a session book needs from GitHub to renew a reader's token: the refresh itself, and the
/// revocation of a token nobody will use (a refresh that landed after a sign-out, a session that
/// expired). `SignIn` in the app is one, over `GitHubOAuth`; tests give their own.
public protocol TokenRefresher: Sendable {
  /// Exchanges a refresh token for a new pair (`GitHubOAuth.refresh`). Called at most once per
  /// refresh token: the book holds the session's renewal lock around it.
  func refresh(_ refreshToken: String) async throws(OAuthError) -> OAuthGrant

  /// Revokes `token` at GitHub without waiting; a failure is logged, never shown to a reader.
  func revokeInBackground(_ token: String)
}

/// A token to revoke because its session is over (it expired, or was replaced): its description
/// never shows the token.
public struct StaleToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
  /// The access token.
  public let token: String

  /// A stale token.
  public init(_ token: String) { self.token = token }

  /// Never the token.
  public var description: String { "StaleToken([redacted])" }
  /// Same as `description`.
  public var debugDescription: String { description }
  /// A mirror without the token.
  public var customMirror: Mirror { Mirror(self, children: []) }
}
