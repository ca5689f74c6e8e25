/// Whether the shared store is in use, as a pure value driven by command outcomes and an injected
/// clock. `failureThreshold` failures in a row make it unavailable (one slow command on a busy
/// machine is not an outage). While unavailable, commands are skipped (each would cost a timeout)
/// except one probe per `retryInterval`; the first success makes it available again. Each change is
/// returned once so the owner logs one line per change, not per request.
public struct StoreHealth: Sendable, Equatable {
  /// A change of availability to report.
  public enum Change: Sendable, Equatable {
    /// The store stopped answering; the error says why.
    case lost(String)
    /// The store answers again after being unavailable for `after` seconds.
    case recovered(after: Double)

    /// The one log line for this change of the store `subject` (such as `redis:`): why it was lost
    /// and what goes on `meanwhile`, or how long it was away and what `resumed` then.
    public func logLine(_ subject: String, meanwhile: String, resumed: String? = nil) -> String {
      switch self {
      case .lost(let reason):
        return "\(subject) unavailable (\(reason)); \(meanwhile)"
      case .recovered(let after):
        let back = "\(subject) available again after \(Int((after * 1000).rounded())) ms"
        return resumed.map { back + "; " + $0 } ?? back
      }
    }
  }

  /// Seconds between probes while unavailable.
  public let retryInterval: Double
  /// Failures in a row that make an available store unavailable.
  public let failureThreshold: Int
  /// True while commands are sent.
  public private(set) var available: Bool
  /// When `available` last changed.
  public private(set) var since: Double
  /// Changes so far.
  public private(set) var transitions = 0
  /// Failed commands so far.
  public private(set) var failures = 0
  /// Error replies (the store answered, but refused the command: a foreign value of the wrong type).
  public private(set) var errorReplies = 0
  /// The last failure message.
  public private(set) var lastError: String?
  private var nextProbe: Double
  private var failuresInARow = 0

  /// Starts available (or not, when the first connection failed) at `now`.
  public init(available: Bool = true, now: Double, retryInterval: Double = 1, failureThreshold: Int = 2) {
    self.available = available
    self.since = now
    self.retryInterval = retryInterval
    self.failureThreshold = max(1, failureThreshold)
    self.nextProbe = now
  }

  /// Whether to send a command at `now`. While unavailable this admits one probe per interval.
  public mutating func shouldAttempt(now: Double) -> Bool {
    if available { return true }
    guard now >= nextProbe else { return false }
    nextProbe = now + retryInterval
    return true
  }

  /// A command answered.
  public mutating func succeeded(now: Double) -> Change? {
    failuresInARow = 0
    guard !available else { return nil }
    let down = now - since
    available = true
    since = now
    transitions += 1
    return .recovered(after: max(0, down))
  }

  /// The store answered with an error reply: it is up, and the command counts as a miss.
  public mutating func answeredWithError(now: Double) -> Change? {
    errorReplies += 1
    return succeeded(now: now)
  }

  /// A command failed or timed out.
  public mutating func failed(_ message: String, now: Double) -> Change? {
    failures += 1
    lastError = message
    failuresInARow += 1
    guard available, failuresInARow >= failureThreshold else { return nil }
    available = false
    since = now
    nextProbe = now + retryInterval
    transitions += 1
    return .lost(message)
  }
}
