/// Records read by position, for a reader that reads many slots of each in a hot loop (the card
/// renderer): it keeps every record (so their blocks live as long as it does) and each block's
/// address, so a read is a load from this list and the block, with no reference count. Reading the
/// same slots through `[PackedRecord]` retains and releases the record's block at each read that
/// calls out, and two event loops rendering the same cached records make those counts contend.
///
/// ```swift
/// let rows = PackedRecords([a, b])
/// rows.number(1, 0)  // b.number(0)
/// rows.withUTF8(0, 2) { span in span.count }  // a's text 2, nil when absent
/// ```
public final class PackedRecords: Sendable {
  /// The records, which own the blocks `blocks` points into.
  private let records: [PackedRecord]
  /// Each record's block, in order; valid while `records` holds them, which is as long as `self`.
  @usableFromInline let blocks: [Block]

  /// Reads `records` by position.
  public init(_ records: [PackedRecord]) {
    self.records = records
    blocks = records.map { $0.storage.block }
  }

  /// How many records there are.
  @inlinable public var count: Int { blocks.count }

  /// Number `index` of record `row`.
  @inlinable public func number(_ row: Int, _ index: Int) -> Int { blocks[row].number(index) }

  /// `body` with the UTF-8 of text `index` of record `row`, read in place; nil (and `body` not
  /// called) when absent.
  @inlinable public func withUTF8<Result>(_ row: Int, _ index: Int, _ body: (Span<UInt8>) -> Result)
    -> Result?
  {
    blocks[row].withText(index, body)
  }

  /// Text `index` of record `row` as a `String`, nil when absent.
  public func string(_ row: Int, _ index: Int) -> String? {
    withUTF8(row, index) { span in span.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } }
  }

  /// How many list elements record `row` holds.
  @inlinable public func listCount(_ row: Int) -> Int { blocks[row].word(Layout.listCount) }

  /// `body` with the UTF-8 of list element `index` (`0..<listCount(row)`) of record `row`.
  @inlinable public func withListUTF8<Result>(_ row: Int, _ index: Int, _ body: (Span<UInt8>) -> Result)
    -> Result
  {
    blocks[row].withListElement(index, body)
  }
}
