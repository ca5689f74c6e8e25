import Packing

/// Repositories read by row, for the card renderer, which reads a dozen fields of each card per
/// request: the same reads as `Repository`'s packed fields, with no reference count per read
/// (`PackedRecords`). An engine's API: `@_spi(PackedFields) import GitHub`.
/// Every read goes through `withRow`'s `Row`, where the fields are read.
/// The reads are inlinable, so a renderer in another module compiles them to loads.
///
/// ```swift
/// let rows = RepositoryRows(repositories)
/// let stars = rows[0, .stargazersCount]
/// rows.withRow(0) { repository in
///   repository.withUTF8(.fullName) { output.append(utf8: $0) }  // nil when absent
/// }
/// ```
@_spi(PackedFields) public struct RepositoryRows: Sendable {
  @usableFromInline let records: PackedRecords

  /// `repositories`, by position.
  @inlinable public init(_ repositories: some Collection<Repository>) {
    records = PackedRecords(repositories.lazy.map(\.record))
  }

  /// How many repositories there are.
  @inlinable public var count: Int { records.count }

  /// A whole-number field of repository `row`.
  @inlinable public subscript(_ row: Int, _ field: Repository.Number) -> Int { withRow(row) { $0[field] } }

  /// A yes/no field of repository `row`.
  @inlinable public subscript(_ row: Int, _ field: Repository.Flag) -> Bool { withRow(row) { $0[field] } }

  /// A text field of repository `row`, nil when absent.
  public subscript(_ row: Int, _ field: Repository.Text) -> String? {
    withUTF8(row, field) { span in span.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } }
  }

  /// `body` with the UTF-8 of `field` of repository `row`, read in place; nil (and `body` not
  /// called) when absent.
  @inlinable public func withUTF8<Result>(
    _ row: Int, _ field: Repository.Text, _ body: (Span<UInt8>) -> Result
  )
    -> Result?
  {
    withRow(row) { $0.withUTF8(field, body) }
  }

  /// How many topics repository `row` has.
  @inlinable public func topicCount(_ row: Int) -> Int { withRow(row) { $0.topicCount } }

  /// `body` with the UTF-8 of topic `index` (`0..<topicCount(row)`) of repository `row`.
  @inlinable public func withTopicUTF8<Result>(_ row: Int, _ index: Int, _ body: (Span<UInt8>) -> Result)
    -> Result
  {
    withRow(row) { $0.withTopicUTF8(index, body) }
  }

  /// `body` with repository `row`, for a reader of several of its fields: the row is looked up once.
  @inlinable public func withRow<Result>(_ row: Int, _ body: (borrowing Row) -> Result) -> Result {
    records.withRecord(row, body)
  }

  /// One repository's fields, read in place (`withRow`): lent borrowed and noncopyable, so it cannot
  /// outlive the call that lends it. Its reads take the field enums of `Repository`.
  public typealias Row = PackedRecords.Record
}

// Forced inline: left to the inliner, the card writer in App called the flags subscript.
@_spi(PackedFields) extension PackedRecords.Record {
  /// A whole-number field of the repository.
  @inlinable @inline(__always) public subscript(_ field: Repository.Number) -> Int { number(field.rawValue) }

  /// A yes/no field of the repository.
  @inlinable @inline(__always) public subscript(_ field: Repository.Flag) -> Bool {
    number(Repository.flagsSlot) & (1 << field.rawValue) != 0
  }

  /// `body` with the UTF-8 of `field` of the repository, read in place; nil (and `body` not called)
  /// when absent.
  @inlinable @inline(__always) public func withUTF8<Result>(
    _ field: Repository.Text, _ body: (Span<UInt8>) -> Result
  )
    -> Result?
  {
    withUTF8(field.rawValue, body)
  }

  /// How many topics the repository has.
  @inlinable @inline(__always) public var topicCount: Int { listCount }

  /// `body` with the UTF-8 of topic `index` (`0..<topicCount`) of the repository.
  @inlinable @inline(__always) public func withTopicUTF8<Result>(
    _ index: Int, _ body: (Span<UInt8>) -> Result
  ) -> Result {
    withListUTF8(index, body)
  }
}
