import Clocks
import Synchronization

/// A clock that moves only when the test moves it: hand its `time` to the code under test, then
/// `advance` it instead of sleeping. The wall and monotonic readings move together.
///
/// ```swift
/// let clock = ManualClock()
/// let book = SessionBook(key: key, store: store, time: clock.time)
/// let client = GitHubClient(configuration: configuration, transport: transport, time: clock.time)
/// clock.advance(3600)  // an hour passes at once
/// ```
public final class ManualClock: Sendable {
  private let nanoseconds: Mutex<(wall: Int64, monotonic: Int64)>

  /// A clock at `epochSeconds` Unix time (by default a fixed instant in 2027), its monotonic
  /// reading at an arbitrary 1000 s.
  public init(epochSeconds: Double = 1_800_000_000) {
    // Whole seconds and the fraction apart, so that a start such as 1_800_000_000.25 is exact.
    let whole = epochSeconds.rounded(.down)
    let fraction = Int64(((epochSeconds - whole) * 1e9).rounded())
    nanoseconds = Mutex((wall: Int64(whole) * 1_000_000_000 + fraction, monotonic: 1_000_000_000_000))
  }

  /// The clock as the program reads it.
  public var time: TimeSource {
    TimeSource(
      wallNanoseconds: { [self] in nanoseconds.withLock { $0.wall } },
      monotonicNanoseconds: { [self] in nanoseconds.withLock { $0.monotonic } })
  }

  /// This clock's wall readings with the system's monotonic clock: for code that also talks to a
  /// real server (Redis), whose connection deadlines must run in real time while the test moves
  /// expiries by hand.
  public var withRealMonotonic: TimeSource {
    TimeSource(
      wallNanoseconds: { [self] in nanoseconds.withLock { $0.wall } },
      monotonicNanoseconds: TimeSource.system.monotonicNanoseconds)
  }

  /// Whole Unix seconds now.
  public var now: Int { time.epochSeconds() }

  /// Unix seconds now, with their fraction (exact to the nanosecond for the values tests use).
  public var seconds: Double {
    let wall = nanoseconds.withLock { $0.wall }
    return Double(wall / 1_000_000_000) + Double(wall % 1_000_000_000) / 1e9
  }

  /// Moves both readings on by `duration`.
  public func advance(by duration: Duration) {
    let (s, atto) = duration.components
    let delta = s &* 1_000_000_000 &+ atto / 1_000_000_000
    nanoseconds.withLock {
      $0.wall &+= delta
      $0.monotonic &+= delta
    }
  }

  /// Moves both readings on by `seconds`.
  public func advance(_ seconds: Double) { advance(by: .nanoseconds(Int64(seconds * 1e9))) }

  /// Moves both readings on by whole `seconds`.
  public func advance(_ seconds: Int) { advance(by: .seconds(seconds)) }
}
