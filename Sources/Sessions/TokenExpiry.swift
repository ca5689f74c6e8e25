/// When a reader's access token expires, and the refresh token that renews it: what a GitHub App
/// with expiring user tokens (or an OAuth app that opted in) hands out at sign-in and at each refresh.
/// It lives only in the sealed session record; its description never shows the refresh token.
///
/// ```swift
/// let expiry = TokenExpiry(grantedAt: now, expiresIn: 28_800, refreshToken: "ghr_…", refreshExpiresIn: 15_897_600)
/// SessionPolicy().tokenVerdict(record, now: now + 28_700)   // .refresh: less than 5 minutes left
/// ```
public struct TokenExpiry: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// Unix seconds from which GitHub refuses the access token.
  public var accessExpires: Int
  /// The single-use refresh token (`ghr_…`); nil when the token cannot be renewed.
  public var refreshToken: String?
  /// Unix seconds from which GitHub refuses the refresh token (meaningless without one).
  public var refreshExpires: Int

  /// Expiry times from their parts.
  public init(accessExpires: Int, refreshToken: String?, refreshExpires: Int) {
    self.accessExpires = accessExpires
    self.refreshToken = refreshToken
    self.refreshExpires = refreshExpires
  }

  /// The expiry of a grant made at `now` with GitHub's relative lifetimes (seconds; saturating).
  public init(grantedAt now: Int, expiresIn: Int, refreshToken: String?, refreshExpiresIn: Int?) {
    func later(_ seconds: Int) -> Int {
      let (sum, overflow) = now.addingReportingOverflow(max(0, seconds))
      return overflow ? .max : sum
    }
    accessExpires = later(expiresIn)
    self.refreshToken = refreshToken
    refreshExpires = later(refreshExpiresIn ?? 0)
  }

  /// The times, never the refresh token.
  public var description: String {
    "TokenExpiry(accessExpires: \(accessExpires), refreshToken: \(refreshToken == nil ? "nil" : "[redacted]"), "
      + "refreshExpires: \(refreshExpires))"
  }

  /// Same as `description`.
  public var debugDescription: String { description }

  /// A mirror without the refresh token.
  public var customMirror: Mirror {
    Mirror(self, children: ["accessExpires": accessExpires, "refreshExpires": refreshExpires])
  }
}
