/// When a session ends and when its token is renewed, as a pure value: a session ends after `idle`
/// seconds without a request, and `absolute` seconds after sign-in whatever happens; an expiring
/// token is refreshed once less than `refreshMargin` seconds are left. Times are Unix seconds from
/// the caller's clock.
public struct SessionPolicy: Sendable, Equatable {
  /// What a record is worth at a given time.
  public enum Verdict: Sendable, Equatable {
    /// Valid; `touch` when `lastSeen` is old enough to be rewritten (extending the idle timeout).
    case valid(touch: Bool)
    /// Past one of the timeouts (or from the future: a clock or a forgery): the session is over.
    case expired
  }

  /// Seconds without a request before a session ends (7 days).
  public var idle = 7 * 86_400
  /// Seconds after sign-in before a session ends however active (30 days).
  public var absolute = 30 * 86_400
  /// Seconds between rewrites of `lastSeen`: a lookup within it writes nothing (1 hour).
  public var touchInterval = 3600
  /// An expiring token with fewer seconds than this left is refreshed before use (5 minutes).
  public var refreshMargin = 300
  /// Sessions one account may hold, as GitHub keeps 10 tokens per user and app: an eleventh
  /// sign-in ends that account's oldest session, never anyone else's.
  public var sessionsPerAccount = 10
  /// Sessions the store holds at most; past it new sign-ins are refused (never is a live session
  /// of another account evicted to make room).
  public var maxSessions = 100_000
  /// Seconds the store keeps a session's sealed record past its end (7 days), so that a reader who
  /// comes back after the timeout has it noticed: the session is ended then and its token revoked.
  /// A record is never valid in this time, only revocable.
  public var revocationGrace = 7 * 86_400

  /// What to do with a session's token before a request uses it.
  public enum TokenVerdict: Sendable, Equatable {
    /// Use it: it does not expire, or has more than `refreshMargin` seconds left.
    case use
    /// Refresh it first: it expires within `refreshMargin` (or has) and the refresh token is live.
    case refresh
    /// It has expired and cannot be renewed (no refresh token, or that has expired too): the
    /// session is over.
    case cannotRenew
  }

  /// The defaults.
  public init() {}

  /// The verdict on `record` at `now`.
  public func verdict(_ record: SessionRecord, now: Int) -> Verdict {
    // A record can only come from our clock; one from the future is not trusted.
    guard record.created <= now + 300, record.lastSeen <= now + 300 else { return .expired }
    let (idleEnd, o1) = record.lastSeen.addingReportingOverflow(idle)
    let (absoluteEnd, o2) = record.created.addingReportingOverflow(absolute)
    guard !o1, !o2, now < idleEnd, now < absoluteEnd else { return .expired }
    return .valid(touch: now - record.lastSeen >= touchInterval)
  }

  /// Whether `record`'s token can be used as it is at `now`, must be refreshed first, or is dead.
  public func tokenVerdict(_ record: SessionRecord, now: Int) -> TokenVerdict {
    guard let expiry = record.expiry else { return .use }
    let (renewFrom, overflow) = expiry.accessExpires.subtractingReportingOverflow(refreshMargin)
    if !overflow, now < renewFrom { return .use }
    guard expiry.refreshToken != nil, now < expiry.refreshExpires else {
      return now < expiry.accessExpires ? .use : .cannotRenew
    }
    return .refresh
  }

  /// Seconds the store should keep `record` from `now`: until the first timeout ends it, and then
  /// `revocationGrace` (at least 1).
  public func keepFor(_ record: SessionRecord, now: Int) -> Int {
    let idleLeft = Self.saturating(Self.saturating(record.lastSeen, idle), -now)
    let absoluteLeft = Self.saturating(Self.saturating(record.created, absolute), -now)
    return max(1, Self.saturating(max(0, min(idleLeft, absoluteLeft, absolute)), max(0, revocationGrace)))
  }

  /// `a + b`, held at the bounds instead of overflowing.
  private static func saturating(_ a: Int, _ b: Int) -> Int {
    let (sum, overflow) = a.addingReportingOverflow(b)
    return overflow ? (b > 0 ? .max : .min) : sum
  }
}
