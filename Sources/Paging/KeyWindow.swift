/// A range of integers (sort keys, or creation times in Unix seconds), both ends inclusive; nil ends
/// are open.
public struct Interval: Hashable, Sendable {
  /// The smallest value; nil: no lower end.
  public var lower: Int?
  /// The largest value; nil: no upper end.
  public var upper: Int?

  /// An interval from its ends.
  public init(lower: Int?, upper: Int?) {
    self.lower = lower
    self.upper = upper
  }

  /// Every value.
  public static let all = Interval(lower: nil, upper: nil)

  /// One value.
  public static func just(_ value: Int) -> Interval { Interval(lower: value, upper: value) }

  /// The single value the interval holds, if it holds one.
  public var single: Int? { lower != nil && lower == upper ? lower : nil }

  /// Whether `value` lies within.
  public func contains(_ value: Int) -> Bool {
    (lower.map { value >= $0 } ?? true) && (upper.map { value <= $0 } ?? true)
  }
}

/// One window of a keyset list: the rows whose sort key lies in `keys` and, inside one key's tie
/// bucket (`keys` a single value), whose creation time lies in `slice`.
///
/// A window is read as one upstream query (`WindowSource.fetch`), so every row it lists comes from
/// one read.
public struct KeyWindow: Hashable, Sendable {
  /// The sort keys covered.
  public var keys: Interval
  /// For a tie-bucket slice (`keys` one value): the creation times covered; nil: any.
  public var slice: Interval?

  /// A window from its parts.
  public init(keys: Interval, slice: Interval? = nil) {
    self.keys = keys
    self.slice = slice
  }

  /// The first window of a list: every key.
  public static let first = KeyWindow(keys: .all)
}

/// Where a batch of a keyset list starts: the window, the rows of it already passed, and the rows of
/// the list before it. Everything a next link needs, so a batch at any depth reads only its windows.
public struct WindowCursor: Hashable, Sendable {
  /// The window the batch starts in.
  public var window: KeyWindow
  /// Rows of the window already passed, counted on the window's rows before any de-duplication:
  /// the same cursor means the same rows wherever it is served. (On the first window it may pass the
  /// window's end: an old `after=N` link, resolved through the windows that follow.)
  public var skip: Int
  /// Rows of the list before the cursor; the next row's position is one more.
  public var position: Int
  /// The list's total as last counted upstream, carried through windows that cannot count it (tie
  /// bucket slices, continuations); nil when unknown.
  public var total: Int?

  /// A cursor from its parts; negative numbers count as 0.
  public init(window: KeyWindow, skip: Int = 0, position: Int = 0, total: Int? = nil) {
    self.window = window
    self.skip = max(0, skip)
    self.position = max(0, position)
    self.total = total.map { max(0, $0) }
  }

  /// The top of a list.
  public static let start = WindowCursor(window: .first)
}
