import GitHub
import Mustache

/// A card's star-history details (`partials/stars`): a sparkline of up to 30 weeks, or why not.
enum StarsView: MustacheRepresentable {
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
        reason: "Star history is waiting for GitHub.", limitedUntil: until, retryIn: max(1, until - now),
        now: now)
    case .notFound, .invalidInput, .validation, .forbidden:
      return .unavailable(
        reason: "Star history is unavailable for this repository.", limitedUntil: nil, retryIn: nil, now: now)
    case .network, .upstream, .decoding, .cancelled:
      return .unavailable(
        reason: "Star history could not be loaded right now.", limitedUntil: nil, retryIn: 30, now: now)
    }
  }

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
    var area = "M0,\(Self.height)"
    for (index, total) in values.enumerated() {
      // Tenths of a unit keep the path short and exact without floating-point formatting.
      let xTenths = index * Self.width * 10 / (Self.maxWeeks - 1)
      let yTenths = (Self.height - 1) * 10 - total * (Self.height - 3) * 10 / largest
      let point = Self.tenths(xTenths) + "," + Self.tenths(yTenths)
      if !points.isEmpty { points += " " }
      points += point
      area += " L" + point
    }
    area += " L\(Self.width),\(Self.height) Z"
    let thisWeek = history.weeks.first.map { max(0, $0.total) } ?? 0
    let sum = known.reduce(0, +)
    let recent = history.weeks.prefix(4).reduce(0) { $0 + max(0, $1.total) }
    let earlier = history.weeks.dropFirst(4).prefix(4).reduce(0) { $0 + max(0, $1.total) }
    let trend: (String, String)
    if recent * 100 > earlier * 115 && recent > earlier {
      trend = ("up", "rising")
    } else if recent * 100 < earlier * 85 {
      trend = ("down", "cooling")
    } else {
      trend = ("flat", "steady")
    }
    return .object([
      "points": .string(points), "area": .string(area), "weeks": .int(weeks),
      "thisWeek": .string(Formatting.gain(thisWeek)), "last30": .string(Formatting.gain(sum)),
      "trend": .object(["direction": .string(trend.0), "label": .string(trend.1)]),
      "stale": .bool(history.isStale),
    ])
  }

  /// `123` tenths → `12.3`, `120` → `12`.
  static func tenths(_ value: Int) -> String {
    let whole = value / 10
    let fraction = abs(value % 10)
    return fraction == 0 ? String(whole) : "\(whole).\(fraction)"
  }
}
