/// How a range of integers that a page cannot hold at once is cut into intervals that it can, one
/// after another in one direction: a tie bucket's creation times (newest first), or a sort key whose
/// value the rows do not show (GitHub's help-wanted issues).
///
/// Each interval is sized from the density of the one before it, aiming at `target` rows, so it rarely
/// holds more than a page; one that does is narrowed by the count its read reported (keeping its near
/// end) and read again. Empty or sparse intervals widen the next (at most `growth` times). At `edge`
/// the interval is left open on its far side, and that last interval ends the walk. All arithmetic
/// saturates: values and counts come from upstream.
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

  /// The first interval of a walk whose rows so far showed `values` (they were read in another order,
  /// from a window of `rows` rows): open on the near side, as wide as `target` rows at their density.
  public func first(values: [Int], rows: Int) -> Interval {
    guard let newest = downward ? values.max() : values.min(),
      let oldest = downward ? values.min() : values.max()
    else { return .all }
    let span = max(1, Self.distance(newest, oldest))
    return interval(
      near: nil, from: newest, width: Self.scaled(span, by: target, per: max(1, max(rows, values.count))))
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
  public func narrowed(_ interval: Interval, rows: Int, seen: Int?) -> Interval? {
    guard let width = width(interval, seen: seen), width > 1, let start = near(interval) ?? seen else {
      return nil
    }
    let wanted = max(1, min(width - 1, Self.scaled(width, by: target, per: max(1, rows))))
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
