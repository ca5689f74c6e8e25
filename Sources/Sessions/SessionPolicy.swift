/// When a session ends, as a pure value: after `idle` seconds without a request, and `absolute`
/// seconds after sign-in whatever happens. Times are Unix seconds from the caller's clock.
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

  /// Seconds the store should keep `record` from `now`: until the first timeout ends it (at least 1).
  public func keepFor(_ record: SessionRecord, now: Int) -> Int {
    let idleLeft = record.lastSeen.addingReportingOverflow(idle).partialValue - now
    let absoluteLeft = record.created.addingReportingOverflow(absolute).partialValue - now
    return max(1, min(idleLeft, absoluteLeft, absolute))
  }
}
