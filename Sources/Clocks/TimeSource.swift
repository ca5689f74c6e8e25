#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The program's one source of "now": the wall clock (Unix time: expiries, rate-limit resets, HTTP
/// dates, log timestamps) and a monotonic clock (durations, timeouts and deadlines, which must not
/// jump when the wall clock is set).
///
/// The program builds one (`.system`) and hands it down to whatever reads the time; tests hand down
/// one they move by hand (`ManualClock` in `TestSupport`). Reading it is a closure call and a vDSO
/// `clock_gettime`, with no allocation, so hot paths may read it per request.
///
/// ```swift
/// let time = TimeSource.system
/// let expires = time.epochSeconds() + 3600
/// let started = time.monotonic()
/// // ... work ...
/// let took: Duration = time.monotonic() - started
/// ```
public struct TimeSource: Sendable {
  /// Nanoseconds since the Unix epoch.
  public let wallNanoseconds: @Sendable () -> Int64
  /// Nanoseconds since an arbitrary fixed start; never goes back.
  public let monotonicNanoseconds: @Sendable () -> Int64

  /// A source from its two readings (tests; everything else uses `.system`).
  public init(
    wallNanoseconds: @escaping @Sendable () -> Int64, monotonicNanoseconds: @escaping @Sendable () -> Int64
  ) {
    self.wallNanoseconds = wallNanoseconds
    self.monotonicNanoseconds = monotonicNanoseconds
  }

  /// The operating system's clocks: `CLOCK_REALTIME` and `CLOCK_MONOTONIC`.
  public static let system = TimeSource(
    wallNanoseconds: { read(CLOCK_REALTIME) }, monotonicNanoseconds: { read(CLOCK_MONOTONIC) })

  /// Whole seconds since the Unix epoch.
  public func epochSeconds() -> Int { Int(wallNanoseconds() / 1_000_000_000) }

  /// Whole milliseconds since the Unix epoch.
  public func epochMilliseconds() -> Int { Int(wallNanoseconds() / 1_000_000) }

  /// Seconds since the Unix epoch, with their fraction.
  public func wallSeconds() -> Double { Double(wallNanoseconds()) / 1e9 }

  /// The monotonic clock as a duration since its start: subtract two readings for an elapsed time.
  public func monotonic() -> Duration { .nanoseconds(monotonicNanoseconds()) }

  /// Whole milliseconds of the monotonic clock, the unit the event loops keep deadlines in.
  public func monotonicMilliseconds() -> Int { Int(monotonicNanoseconds() / 1_000_000) }

  /// Seconds of the monotonic clock, with their fraction.
  public func monotonicSeconds() -> Double { Double(monotonicNanoseconds()) / 1e9 }

  private static func read(_ clock: clockid_t) -> Int64 {
    var ts = timespec()
    clock_gettime(clock, &ts)
    return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
  }
}
