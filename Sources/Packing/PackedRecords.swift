/// Records read by position, for a reader that reads many slots of each in a hot loop (the card
/// renderer): it keeps every record (so their blocks live as long as it does) beside its block's
/// address, so a read is a load from this list and the block, with no reference count. Reading the
/// same slots through `[PackedRecord]` retains and releases the record's block at each read that
/// calls out, and two event loops rendering the same cached records make those counts contend. One
/// array is all it allocates.
///
/// ```swift
/// let rows = PackedRecords([a, b])
/// rows.withRecord(1) { $0.number(0) }  // b.number(0)
/// rows.withRecord(0) { $0.withUTF8(2) { span in span.count } }  // a's text 2, nil when absent
/// ```
public struct PackedRecords: Sendable {
  /// A record, which owns the block `block` points into: valid as long as the entry is held.
  @usableFromInline struct Entry: Sendable {
    @usableFromInline let record: PackedRecord
    @usableFromInline let block: Block

    @inlinable init(_ record: PackedRecord) {
      self.record = record
      block = record.storage.block
    }
  }

  /// The records in order, each with its block.
  @usableFromInline let entries: [Entry]
  /// Reads `records` by position.
  @inlinable public init(_ records: some Collection<PackedRecord>) {
    entries = records.map(Entry.init)
  }

  /// How many records there are.
  @inlinable public var count: Int { entries.count }

  /// `body` with a reader of record `row`, for a caller that reads several of its slots: the record
  /// is looked up once, and each read is then a load from its block.
  @inlinable public func withRecord<Result>(_ row: Int, _ body: (borrowing Record) -> Result) -> Result {
    body(Record(block: entries[row].block))
  }
}

extension PackedRecords {
  /// One record's slots, read in place (`PackedRecords.withRecord`). Lent borrowed and noncopyable,
  /// so it cannot outlive the call that lends it, while the records keep its block alive.
  public struct Record: ~Copyable {
    @usableFromInline let block: Block

    @inlinable init(block: Block) { self.block = block }

    /// Number `index`.
    @inlinable public func number(_ index: Int) -> Int { block.number(index) }

    /// `body` with the UTF-8 of text `index`, read in place; nil (and `body` not called) when absent.
    @inlinable public func withUTF8<Result>(_ index: Int, _ body: (Span<UInt8>) -> Result) -> Result? {
      block.withText(index, body)
    }

    /// How many list elements the record holds.
    @inlinable public var listCount: Int { block.word(Layout.listCount) }

    /// `body` with the UTF-8 of list element `index` (`0..<listCount`).
    @inlinable public func withListUTF8<Result>(_ index: Int, _ body: (Span<UInt8>) -> Result) -> Result {
      block.withListElement(index, body)
    }
  }
}
