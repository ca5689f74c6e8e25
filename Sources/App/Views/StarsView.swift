import GitHub
import Mustache

/// A card's star-history details (`partials/stars`): a sparkline of up to 30 weeks, or why not.
enum StarsView: MustacheRepresentable, TemplateView {
  /// The history arrived.
  case loaded(StarHistory)
  /// It did not; `limitedUntil` is set for rate limits, `retryIn` for transient failures.
  case unavailable(reason: String, limitedUntil: Int?, retryIn: Int?, now: Int)

  /// Weeks drawn at most.
  static let maxWeeks = 30
  static let width = 120
  static let height = 30

  /// The view for a failed load.
  static func failure(_ error: GitHubError, now: Int) -> StarsView {
    switch error {
    case .rateLimited(_, let until, _):
      return .unavailable(
        reason: "History paused", limitedUntil: until, retryIn: max(1, until - now),
        now: now)
    case .notFound, .invalidInput, .validation, .forbidden, .unauthorized:
      return .unavailable(
        reason: "No star history", limitedUntil: nil, retryIn: nil, now: now)
    case .network, .upstream, .decoding, .cancelled:
      return unreachable(now: now)
    }
  }

  /// GitHub or this server could not be reached for now; asked again in 30 s.
  static func unreachable(now: Int) -> StarsView {
    .unavailable(reason: "History unavailable right now", limitedUntil: nil, retryIn: 30, now: now)
  }

  /// What a card shows when the browser's history request fails (the page's template for details.js).
  static let failedRequest = unreachable(now: 0).mustacheValue

  /// A card's star history, alone and in the batch route's list.
  static let templates: Set<String> = ["partials/stars", "partials/stars-batch"]

  static let vocabulary = MustacheSchema("the stars view", names: templateNames)

  /// Every name the stars templates read: `mustacheValue`'s (nested ones too) and the batch route's
  /// `histories` of `name` and `view`. Checked when the templates load.
  static let templateNames = [
    "histories", "name", "view", "loaded", "unavailable", "reason", "limited", "resetText", "resetISO",
    "retryIn", "points", "weeks", "thisWeek", "last30", "trend", "trend.direction", "trend.label", "stale",
  ]

  var mustacheValue: MustacheValue {
    switch self {
    case .loaded(let history):
      return .object(["loaded": loadedValue(history)])
    case .unavailable(let reason, let until, let retryIn, let now):
      var value: [String: MustacheValue] = ["reason": .string(reason), "limited": .bool(until != nil)]
      if let until {
        value["resetText"] = .string(Formatting.resetText(until, now: now))
        value["resetISO"] = .string(Formatting.iso(until))
      }
      if let retryIn { value["retryIn"] = .int(retryIn) }
      return .object(["unavailable": .object(value)])
    }
  }

  private func loadedValue(_ history: StarHistory) -> MustacheValue {
    // Newest first upstream; the line runs oldest to newest, left to right. A repository younger than
    // 30 weeks had no stars before it existed, so its series is padded with zeros on the left and
    // every card shares one time scale.
    let known = history.weeks.prefix(Self.maxWeeks).reversed().map { max(0, $0.total) }
    let values = Array(repeating: 0, count: Self.maxWeeks - known.count) + known
    let weeks = Self.maxWeeks
    let largest = max(values.max() ?? 0, 1)
    var points = ""
    for (index, total) in values.enumerated() {
      // Tenths of a unit keep the path short and exact without floating-point formatting.
      let xTenths = index * Self.width * 10 / (Self.maxWeeks - 1)
      let yTenths = (Self.height - 1) * 10 - Self.scaled(total, by: (Self.height - 3) * 10, over: largest)
      let point = Self.tenths(xTenths) + "," + Self.tenths(yTenths)
      if !points.isEmpty { points += " " }
      points += point
    }
    let thisWeek = history.weeks.first.map { max(0, $0.total) } ?? 0
    let sum = Self.saturatingSum(known)
    let recent = Self.saturatingSum(history.weeks.prefix(4).lazy.map { max(0, $0.total) })
    let earlier = Self.saturatingSum(history.weeks.dropFirst(4).prefix(4).lazy.map { max(0, $0.total) })
    let trend: (String, String)
    if Self.productExceeds(recent, 100, earlier, 115) && recent > earlier {
      trend = ("up", "rising")
    } else if Self.productExceeds(earlier, 85, recent, 100) {
      trend = ("down", "cooling")
    } else {
      trend = ("flat", "steady")
    }
    return .object([
      "points": .string(points), "weeks": .int(weeks),
      "thisWeek": .string(Formatting.gain(thisWeek)), "last30": .string(Formatting.gain(sum)),
      "trend": .object(["direction": .string(trend.0), "label": .string(trend.1)]),
      "stale": .bool(history.isStale),
    ])
  }

  /// `value × numerator ÷ denominator` for `0 ≤ value ≤ denominator·k`, without overflow: a product
  /// too large for `Int` is computed in floating point instead (exact enough for a pixel or a trend).
  static func scaled(_ value: Int, by numerator: Int, over denominator: Int) -> Int {
    let (product, overflow) = value.multipliedReportingOverflow(by: numerator)
    guard overflow else { return product / max(1, denominator) }
    return Int(max(-9e18, min(9e18, Double(value) * Double(numerator) / Double(max(1, denominator)))))
  }

  /// Whether `a·x > b·y`, exactly, for any `Int`s (double-width products cannot overflow).
  static func productExceeds(_ a: Int, _ x: Int, _ b: Int, _ y: Int) -> Bool {
    let left = a.multipliedFullWidth(by: x)
    let right = b.multipliedFullWidth(by: y)
    return (left.high, left.low) > (right.high, right.low)
  }

  /// The sum of non-negative counts, stopping at `Int.max` rather than trapping.
  static func saturatingSum(_ values: some Sequence<Int>) -> Int {
    values.reduce(0) { total, value in
      let (sum, overflow) = total.addingReportingOverflow(value)
      return overflow ? Int.max : sum
    }
  }

  /// `123` tenths → `12.3`, `120` → `12`.
  static func tenths(_ value: Int) -> String {
    let whole = value / 10
    let fraction = abs(value % 10)
    return fraction == 0 ? String(whole) : "\(whole).\(fraction)"
  }
}
