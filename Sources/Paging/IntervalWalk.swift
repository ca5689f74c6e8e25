/// How a range of integers that a page cannot hold at once is cut into intervals that it can, one
/// after another in one direction: a tie bucket's creation times (newest first), or a sort key whose
/// value the rows do not show (GitHub's help-wanted issues).
///
/// Each interval aims at `target` rows, so it rarely holds more than a page: placed by a sample of the
/// range's values where one is known (`interval(past:sample:rows:)`: a bucket's creation times), else
/// sized from the density of the interval before it (`next`), where empty or sparse intervals widen
/// the next (at most `growth` times). One that holds more than a page is narrowed by the count its
/// read reported (keeping its near end) and read again. At `edge` the interval is left open on its far
/// side, and that last interval ends the walk. All arithmetic saturates: values and counts come from
/// upstream.
public struct IntervalWalk: Sendable {
  /// True when the walk goes from large values to small ones.
  public var downward: Bool
  /// The far side's end: past it (below when downward, above when upward) intervals are open.
  public var edge: Int
  /// Rows an interval aims at; a page holds 100, so an interval of this density rarely overflows.
  public var target = 80
  /// Most an interval widens over the one before.
  public var growth = 16

  /// A walk in one direction that opens at `edge`.
  public init(downward: Bool, edge: Int) {
    self.downward = downward
    self.edge = edge
  }

  /// Creation times, newest first; open below GitHub's first repository (2007-10-01T00:00:00Z).
  public static let creationTimes = IntervalWalk(downward: true, edge: 1_191_196_800)

  /// The end an interval starts from.
  public func near(_ interval: Interval) -> Int? { downward ? interval.upper : interval.lower }

  /// The end an interval goes to.
  public func far(_ interval: Interval) -> Int? { downward ? interval.lower : interval.upper }

  /// The interval with these ends.
  public func interval(near: Int?, far: Int?) -> Interval {
    downward ? Interval(lower: far, upper: near) : Interval(lower: near, upper: far)
  }

  /// `value` moved `distance` towards the far side, saturating.
  func step(_ value: Int, _ distance: Int) -> Int {
    let (moved, overflow) =
      downward ? value.subtractingReportingOverflow(distance) : value.addingReportingOverflow(distance)
    return overflow ? (downward ? Int.min : Int.max) : moved
  }

  /// An interval `width` values wide from `near` (kept open when nil); open on its far side at the edge.
  func interval(near: Int?, from start: Int, width: Int) -> Interval {
    let far = step(start, max(1, width) - 1)
    let open = downward ? far <= edge : far >= edge
    return interval(near: near, far: open ? nil : far)
  }

  /// The interval just past `start` (nil: from the near end) holding about `target` of the `rows` rows
  /// of a range that `sample` (the values of rows drawn across it) describes: its far end at the
  /// sample's next `target / rows` share; open on the far side (the last interval) when the sample
  /// shows no more than that share left. Densities are rarely even (GitHub's repositories are mostly
  /// recent), and the sample follows them where a width from the average cannot.
  public func interval(past start: Int?, sample: [Int], rows: Int) -> Interval {
    let ahead = sample.filter { value in start.map { downward ? value <= $0 : value >= $0 } ?? true }
      .sorted(by: downward ? (>) : (<))
    let share = max(1, Self.scaled(sample.count, by: target, per: max(1, rows)))
    guard ahead.count > share else { return interval(near: start, far: nil) }
    return interval(near: start, far: ahead[share - 1])
  }

  /// The width of `interval`, its open near end taken at `seen` (the nearest value its rows showed)
  /// and its open far end at the edge; nil when the near end is open and nothing was seen.
  public func width(_ interval: Interval, seen: Int?) -> Int? {
    guard let near = near(interval) ?? seen else { return nil }
    let far = self.far(interval) ?? (downward ? min(edge, near) : max(edge, near))
    let span = Self.distance(near, far)
    return span == Int.max ? Int.max : span + 1
  }

  /// The interval after `interval`, which held `rows` rows (`seen` as in `width`): starting just past
  /// its far end, sized from its density. Nil when `interval` was open on its far side (the walk ends).
  public func next(after interval: Interval, rows: Int, seen: Int?) -> Interval? {
    guard let far = far(interval) else { return nil }
    let width = self.width(interval, seen: seen) ?? 1
    let grown = Self.product(width, growth)
    let wanted = rows <= 0 ? grown : min(grown, max(1, Self.scaled(width, by: target, per: rows)))
    let start = step(far, 1)
    if start == far { return nil }
    return self.interval(near: start, from: start, width: wanted)
  }

  /// A narrower interval with the same near end, for `interval` that held `rows` rows (more than a
  /// page; `seen` as in `width`). Nil when it cannot be narrowed (one value, or no width known).
  ///
  /// The width is what would hold `target` rows at the interval's average density, or, when `sample`
  /// (the values of the rows its read showed, drawn across it) is given, the span of its nearest
  /// `target / rows` share, if narrower: densities are rarely even (GitHub's repositories are mostly
  /// recent), and a sample finds the crowded end in one step where the average needs several.
  public func narrowed(_ interval: Interval, rows: Int, seen: Int?, sample: [Int] = []) -> Interval? {
    guard let width = width(interval, seen: seen), width > 1, let start = near(interval) ?? seen else {
      return nil
    }
    var wanted = max(1, min(width - 1, Self.scaled(width, by: target, per: max(1, rows))))
    if !sample.isEmpty, rows > 0 {
      let nearest = sample.sorted(by: downward ? (>) : (<))
      // The sample's share that `target` rows are of the interval's.
      let share = min(nearest.count - 1, Self.scaled(nearest.count, by: target, per: rows))
      let span = Self.distance(start, nearest[max(0, share)])
      wanted = max(1, min(wanted, span == Int.max ? wanted : span + 1))
    }
    let narrowed = self.interval(near: near(interval), from: start, width: wanted)
    // Never past the old far end, and strictly narrower.
    guard let far = far(narrowed) else { return nil }
    if let old = self.far(interval), downward ? far < old : far > old { return nil }
    return narrowed == interval ? nil : narrowed
  }

  /// `a - b` as a distance: saturating at 0 and `Int.max`, in either order of the walk.
  static func distance(_ a: Int, _ b: Int) -> Int {
    let (high, low) = a >= b ? (a, b) : (b, a)
    let (d, overflow) = high.subtractingReportingOverflow(low)
    return overflow ? Int.max : d
  }

  /// `a * b` for non-negative values, saturating at `Int.max`.
  static func product(_ a: Int, _ b: Int) -> Int {
    let (p, overflow) = a.multipliedReportingOverflow(by: b)
    return overflow ? Int.max : p
  }

  /// `value * numerator / denominator` for non-negative values, without overflow.
  static func scaled(_ value: Int, by numerator: Int, per denominator: Int) -> Int {
    let d = max(1, denominator)
    let (p, overflow) = value.multipliedReportingOverflow(by: numerator)
    if !overflow { return p / d }
    let result = Double(value) * Double(numerator) / Double(d)
    return result >= Double(Int.max) ? Int.max : Int(result)
  }
}
