/// One item together with its 1-based position in the de-duplicated list.
public struct PositionedItem<Item: Sendable>: Sendable {
  /// 1-based position in the de-duplicated sequence (`aria-posinset`).
  public var position: Int
  /// The item itself.
  public var item: Item

  /// Creates a positioned item.
  public init(position: Int, item: Item) {
    self.position = position
    self.item = item
  }
}

/// The answer to "the batch after cursor C".
public struct ListBatch<Item: Sendable>: Sendable {
  /// The cursor this batch was asked for (0 = start); a retry reuses it.
  public var cursor: Int
  /// The items `[cursor, cursor + count)` of the de-duplicated sequence.
  public var items: [PositionedItem<Item>]
  /// Where the following batch starts; nil when the list ended, is empty or failed.
  public var nextCursor: Int?
  /// The upstream total capped by its result cap (`aria-setsize`), the largest any page read so far
  /// reported, so it never shrinks until the true end gives the exact count; 0 when unknown (errors).
  public var total: Int
  /// The list state this batch reports.
  public var state: ListState
  /// True when a page read for this batch (or before it) was marked incomplete by the upstream.
  public var incomplete: Bool
  /// The largest `PageSource.peak(of:)` of the pages up to this batch's (0 for errors).
  public var peak: Int
  /// The largest total any page read so far reported, before the result cap (a page's "1,681
  /// results"); 0 when unknown (errors).
  public var reportedTotal: Int

  /// Creates a batch.
  public init(
    cursor: Int, items: [PositionedItem<Item>], nextCursor: Int?, total: Int, state: ListState,
    incomplete: Bool = false, peak: Int = 0, reportedTotal: Int = 0
  ) {
    self.cursor = cursor
    self.items = items
    self.nextCursor = nextCursor
    self.total = total
    self.state = state
    self.incomplete = incomplete
    self.peak = peak
    self.reportedTotal = reportedTotal
  }
}
