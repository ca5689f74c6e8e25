extension StringProtocol {
  /// The text without leading and trailing spaces and tabs (HTTP's optional whitespace).
  public var trimmingSpaces: SubSequence { trimming { $0 == " " || $0 == "\t" } }

  /// The text without leading and trailing whitespace of any kind (user input, configuration);
  /// FoundationEssentials has no trimming.
  public var trimmingWhitespace: SubSequence {
    // Text that starts and ends with a visible ASCII byte has nothing to trim; checking two bytes
    // spares the grapheme walk that `Character` comparisons cost (every search query asks this).
    let visibleEnds = utf8.withContiguousStorageIfAvailable { bytes in
      guard let first = bytes.first, let last = bytes.last else { return false }
      return Self.isVisibleASCII(first) && Self.isVisibleASCII(last)
    }
    if visibleEnds == true { return self[startIndex..<endIndex] }
    return trimming(\.isWhitespace)
  }

  /// `!` through `~`: an ASCII byte that is neither whitespace nor a control.
  private static func isVisibleASCII(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }

  /// The text without the leading and trailing characters `drop` accepts.
  @inlinable
  public func trimming(_ drop: (Character) -> Bool) -> SubSequence {
    guard let start = firstIndex(where: { !drop($0) }) else { return self[endIndex...] }
    let end = lastIndex(where: { !drop($0) }) ?? start
    return self[start...end]
  }
}
