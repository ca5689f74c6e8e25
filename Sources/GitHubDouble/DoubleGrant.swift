/// What a sign-in at the double gave, for tests that skip the browser (`GitHubDouble.grant`): the
/// access token and, for a GitHub App, the refresh token and both lifetimes in seconds.
///
/// ```swift
/// let grant = try #require(double.grant(login: "mona"))   // the demo GitHub App
/// double.advanceTokenClock(by: 8 * 3600)                  // grant.accessToken now answers 401
/// ```
public struct DoubleGrant: Sendable, Equatable, CustomStringConvertible {
  /// The user token (`gho_…` or `ghu_…`).
  public var accessToken: String
  /// The single-use refresh token (`ghr_…`); nil for a token that does not expire.
  public var refreshToken: String?
  /// Seconds the access token lives; nil when it does not expire.
  public var expiresIn: Int?
  /// Seconds the refresh token lives; nil without one.
  public var refreshTokenExpiresIn: Int?

  /// The lifetimes, never the tokens.
  public var description: String {
    "DoubleGrant(expiresIn: \(expiresIn.map(String.init) ?? "nil"), "
      + "refreshTokenExpiresIn: \(refreshTokenExpiresIn.map(String.init) ?? "nil"))"
  }
}
