/// Byte-level edits of the double's own JSON (well-formed, written by `JSONWriter`), so hostile modes
/// can spoil single values, including in ways no JSON encoder would write (raw invalid UTF-8).
enum JSONSurgery {
  /// The index one past the JSON value that starts at `start` (after optional whitespace).
  static func valueEnd(_ b: [UInt8], from start: Int) -> Int {
    var i = start
    while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    guard i < b.count else { return i }
    switch b[i] {
    case UInt8(ascii: "\""):
      i += 1
      while i < b.count, b[i] != UInt8(ascii: "\"") { i += b[i] == UInt8(ascii: "\\") ? 2 : 1 }
      return min(i + 1, b.count)
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      var depth = 0
      while i < b.count {
        switch b[i] {
        case UInt8(ascii: "\""): i = valueEnd(b, from: i) - 1
        case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          depth -= 1
          if depth == 0 { return i + 1 }
        default: break
        }
        i += 1
      }
      return i
    default:
      while i < b.count, !",]} \n\r\t".utf8.contains(b[i]) { i += 1 }
      return i
    }
  }

  /// The ranges of the elements of the array that starts (`[`) at `start`.
  static func elements(_ b: [UInt8], arrayAt start: Int) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var i = start + 1
    while i < b.count {
      while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x2C { i += 1 }
      guard i < b.count, b[i] != UInt8(ascii: "]") else { break }
      let end = valueEnd(b, from: i)
      ranges.append(i..<end)
      i = end
    }
    return ranges
  }

  /// The first index of `needle` in `b` at or after `from`.
  static func find(_ needle: [UInt8], in b: [UInt8], from: Int = 0) -> Int? {
    guard !needle.isEmpty, b.count >= needle.count else { return nil }
    var i = from
    while i <= b.count - needle.count {
      if b[i] == needle[0], b[i..<(i + needle.count)].elementsEqual(needle) { return i }
      i += 1
    }
    return nil
  }

  /// The range of the first value of `"field":`, if present.
  static func valueRange(of field: String, in b: [UInt8]) -> Range<Int>? {
    let key = Array("\"\(field)\":".utf8)
    guard let at = find(key, in: b) else { return nil }
    let start = at + key.count
    return start..<valueEnd(b, from: start)
  }

  /// `b` with the first value of `"field":` replaced by `raw` (unchanged when the field is absent).
  static func replacing(_ field: String, in b: [UInt8], with raw: [UInt8]) -> [UInt8] {
    guard let range = valueRange(of: field, in: b) else { return b }
    var out = b
    out.replaceSubrange(range, with: raw)
    return out
  }

  /// A search body split into what precedes the items, the items, and what follows them.
  static func searchItems(_ b: [UInt8]) -> (head: [UInt8], items: [[UInt8]], tail: [UInt8])? {
    guard let at = find(Array("\"items\":[".utf8), in: b) else { return nil }
    let open = at + 8
    let end = valueEnd(b, from: open)
    let items = elements(b, arrayAt: open).map { Array(b[$0]) }
    return (Array(b[..<(open + 1)]), items, Array(b[(end - 1)...]))
  }

  /// The top-level array elements of an array body (star history).
  static func arrayItems(_ b: [UInt8]) -> [[UInt8]]? {
    guard b.first == UInt8(ascii: "[") else { return nil }
    return elements(b, arrayAt: 0).map { Array(b[$0]) }
  }

  /// Items joined back into a body between `head` and `tail`.
  static func join(_ head: [UInt8], _ items: [[UInt8]], _ tail: [UInt8]) -> [UInt8] {
    var out = head
    for (i, item) in items.enumerated() {
      if i > 0 { out.append(UInt8(ascii: ",")) }
      out += item
    }
    return out + tail
  }
}
