extension StringProtocol {
  /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
  public var trimmingSpaces: SubSequence { trimming { $0 == " " || $0 == "\t" } }

  /// The text without leading and trailing whitespace of any kind (user input, configuration);
  /// FoundationEssentials has no trimming.
  public var trimmingWhitespace: SubSequence { trimming(\.isWhitespace) }

  /// The text without the leading and trailing characters `drop` accepts.
  @inlinable
  public func trimming(_ drop: (Character) -> Bool) -> SubSequence {
    guard let start = firstIndex(where: { !drop($0) }) else { return self[endIndex...] }
    let end = lastIndex(where: { !drop($0) }) ?? start
    return self[start...end]
  }
}
