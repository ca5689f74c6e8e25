/// Calls by endpoint and status, for `GET /_double/counters`.
public struct DoubleCounters: Sendable, Equatable {
  /// Calls per endpoint.
  public var calls: [DoubleEndpoint: Int] = [:]
  /// Calls per endpoint and status code.
  public var statuses: [DoubleEndpoint: [Int: Int]] = [:]

  /// Requests being served right now (including hangs and latency sleeps).
  public var inFlight = 0
  /// Requests that ended without an answer because their task was cancelled (the client went away).
  public var cancelled = 0

  /// Empty counters.
  public init() {}

  /// Calls to one endpoint.
  public func calls(_ e: DoubleEndpoint) -> Int { calls[e] ?? 0 }

  /// Calls to one endpoint answered with one status.
  public func calls(_ e: DoubleEndpoint, status: Int) -> Int { statuses[e]?[status] ?? 0 }

  /// All calls.
  public var total: Int { calls.values.reduce(0, +) }

  mutating func record(_ e: DoubleEndpoint, status: Int) {
    calls[e, default: 0] += 1
    statuses[e, default: [:]][status, default: 0] += 1
  }

  /// `{"total":N,"in_flight":N,"cancelled":N,"endpoints":{"search":{"calls":N,"statuses":{"200":N}}}}`.
  func json() -> [UInt8] {
    var w = JSONWriter()
    w.objectStart()
    w.field("total", total)
    w.field("in_flight", inFlight)
    w.field("cancelled", cancelled)
    w.key("endpoints")
    w.objectStart()
    for e in DoubleEndpoint.allCases where calls[e] != nil {
      w.dynamicKey(e.rawValue)
      w.objectStart()
      w.field("calls", calls(e))
      w.key("statuses")
      w.objectStart()
      for (code, n) in (statuses[e] ?? [:]).sorted(by: { $0.key < $1.key }) {
        w.dynamicKey(String(code))
        w.int(n)
      }
      w.objectEnd()
      w.objectEnd()
    }
    w.objectEnd()
    w.objectEnd()
    return w.bytes
  }
}

/// What the fault draw decided for one request.
enum FaultDecision: Equatable {
  case none, hang, secondaryLimit, serverError(Int), truncate
}

/// Mutable state of a double: rate windows, faults, counters and the seeded fault generator.
struct DoubleState {
  var windows: [DoubleResource: RateWindow]
  /// Each signed-in user's own windows, by user id (all of a user's tokens spend them, as on GitHub).
  var userWindows: [Int: [DoubleResource: RateWindow]] = [:]
  /// A signed-in user's limits: search per minute, core per hour.
  let readerLimits: (search: Int, core: Int)
  var faults: FaultSettings
  var counters = DoubleCounters()
  var requests = RequestLog()
  var rng: SplitMix64
  /// Star counts moved by the `starDrift` fault.
  var drift = StarDrift()

  init(configuration c: DoubleConfiguration, now: Int) {
    windows = [
      .search: RateWindow(limit: c.searchLimitPerMinute, window: 60, now: now),
      .core: RateWindow(limit: c.coreLimitPerHour, window: 3600, now: now),
    ]
    faults = c.faults
    rng = SplitMix64(seed: SplitMix64.mix(c.seed ^ 0xFA17_5EED))
    readerLimits = (max(0, c.readerSearchLimitPerMinute), max(0, c.readerCoreLimitPerHour))
  }

  /// The window `resource` is counted on for `user` (nil: the shared anonymous/server one), rolled
  /// forward to `now`; a user's starts full.
  mutating func window(_ resource: DoubleResource, user: Int?, now: Int) -> RateWindow {
    var w: RateWindow
    if let user {
      w =
        userWindows[user]?[resource]
        ?? (resource == .search
          ? RateWindow(limit: readerLimits.search, window: 60, now: now)
          : RateWindow(limit: readerLimits.core, window: 3600, now: now))
    } else {
      w = windows[resource] ?? RateWindow(limit: 60, window: 3600, now: now)
    }
    w.roll(now: now)
    return w
  }

  /// Stores a window `window(_:user:now:)` gave out.
  mutating func store(_ w: RateWindow, _ resource: DoubleResource, user: Int?) {
    if let user { userWindows[user, default: [:]][resource] = w } else { windows[resource] = w }
  }

  /// Draws the latency (ms) for one request.
  mutating func latency(for e: DoubleEndpoint) -> Int {
    guard let r = faults.latency.range(for: e) else { return 0 }
    return r.min == r.max ? r.min : r.min + rng.below(r.max - r.min + 1)
  }

  /// Draws the fault for one request: one uniform draw split across the configured rates.
  mutating func drawFault() -> FaultDecision {
    let f = faults
    if f.hangRate + f.secondaryLimitRate + f.rate5xx + f.truncatedJSONRate <= 0 { return .none }
    let u = rng.unit()
    var edge = f.hangRate
    if u < edge { return .hang }
    edge += f.secondaryLimitRate
    if u < edge { return .secondaryLimit }
    edge += f.rate5xx
    if u < edge { return .serverError([500, 502, 503][rng.below(3)]) }
    edge += f.truncatedJSONRate
    if u < edge { return .truncate }
    return .none
  }
}
