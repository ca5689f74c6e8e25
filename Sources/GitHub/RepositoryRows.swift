import Packing

/// Repositories read by row, for the card renderer, which reads a dozen fields of each card per
/// request: the same reads as `Repository`'s, with no reference count per read (`PackedRecords`).
///
/// ```swift
/// let rows = RepositoryRows(repositories)
/// let stars = rows[0, .stargazersCount]
/// rows.withUTF8(0, .fullName) { output.append(utf8: $0) }  // nil when absent
/// ```
public struct RepositoryRows: Sendable {
  private let records: PackedRecords

  /// `repositories`, by position.
  public init(_ repositories: [Repository]) {
    records = PackedRecords(repositories.map(\.record))
  }

  /// How many repositories there are.
  public var count: Int { records.count }

  /// A whole-number field of repository `row`.
  public subscript(_ row: Int, _ field: Repository.Number) -> Int { records.number(row, field.rawValue) }

  /// A yes/no field of repository `row`.
  public subscript(_ row: Int, _ field: Repository.Flag) -> Bool {
    records.number(row, Repository.Number.allCases.count) & (1 << field.rawValue) != 0
  }

  /// A text field of repository `row`, nil when absent.
  public subscript(_ row: Int, _ field: Repository.Text) -> String? { records.string(row, field.rawValue) }

  /// `body` with the UTF-8 of `field` of repository `row`, read in place; nil (and `body` not
  /// called) when absent.
  public func withUTF8<Result>(_ row: Int, _ field: Repository.Text, _ body: (Span<UInt8>) -> Result)
    -> Result?
  {
    records.withUTF8(row, field.rawValue, body)
  }

  /// How many topics repository `row` has.
  public func topicCount(_ row: Int) -> Int { records.listCount(row) }

  /// `body` with the UTF-8 of topic `index` (`0..<topicCount(row)`) of repository `row`.
  public func withTopicUTF8<Result>(_ row: Int, _ index: Int, _ body: (Span<UInt8>) -> Result) -> Result {
    records.withListUTF8(row, index, body)
  }
}
