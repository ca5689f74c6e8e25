import Encodings
import HTTP
import Mustache

/// The small derived texts and numbers of a card, computed from a repository's fields.
enum CardText {
  /// Stars relative to the largest count, 0…100, at least 1 when there are any stars. Any `Int`s are
  /// accepted; nothing overflows.
  static func barPercent(stars: Int, largest: Int) -> Int {
    guard stars > 0 else { return 0 }
    let scale = max(largest, stars)
    let (scaled, overflow) = stars.multipliedReportingOverflow(by: 100)
    let percent = overflow ? stars / max(1, scale / 100) : scaled / scale
    return min(100, max(1, percent))
  }

  /// The colour band by absolute stars.
  static func band(_ stars: Int) -> Int {
    switch stars {
    case ..<100: return 1
    case ..<1000: return 2
    case ..<10_000: return 3
    case ..<50_000: return 4
    default: return 5
    }
  }

  /// Whether `url` is an http(s) link, the only kind a card sends the reader to.
  static func isWebLink<Bytes: Collection<UInt8>>(_ url: Bytes) -> Bool {
    url.starts(with: "https://".utf8) || url.starts(with: "http://".utf8)
  }

  /// `isWebLink` of UTF-8 read in place.
  static func isWebLink(_ url: Span<UInt8>) -> Bool {
    // "http" then "://" or "s://", byte by byte (this runs for every card).
    func byte(_ i: Int, _ ascii: Unicode.Scalar) -> Bool { i < url.count && url[i] == UInt8(ascii: ascii) }
    guard byte(0, "h"), byte(1, "t"), byte(2, "t"), byte(3, "p") else { return false }
    let colon = byte(4, "s") ? 5 : 4
    return byte(colon, ":") && byte(colon + 1, "/") && byte(colon + 2, "/")
  }

  /// Only http(s) links leave the page; anything else points at the repository on github.com.
  static func safeLink(_ url: String, fallback fullName: String) -> String {
    if isWebLink(url.utf8) { return url }
    return "https://github.com/"
      + fullName.split(separator: "/").map { URLEncoding.percentEncode(String($0)) }
      .joined(separator: "/")
  }

  /// One or two capital letters from a login: `octo-cat` → `OC`, `swift` → `S`.
  static func initials(_ login: String) -> String {
    if login.utf8.allSatisfy({ $0 < 0x80 }) { return asciiInitials(login) }
    var letters: [Character] = []
    var atStart = true
    for character in login where letters.count < 2 {
      if character == "-" || character == "_" || character == "." {
        atStart = true
      } else if atStart {
        letters.append(character)
        atStart = false
      }
    }
    let text = (letters.isEmpty ? String(login.prefix(1)) : String(letters)).uppercased()
    return text.isEmpty ? "?" : text
  }

  /// `initials` for an ASCII login (every GitHub login), without intermediate strings.
  private static func asciiInitials(_ login: String) -> String {
    TextBuilder.make(capacity: 2) { asciiInitials(login.utf8.span, into: &$0) }
  }

  /// `initials` of a login's UTF-8 bytes, appended to a render's output; an ASCII login's without
  /// making a `String`.
  static func writeInitials(utf8 login: Span<UInt8>, to output: inout MustacheOutput) {
    for i in login.indices where login[i] >= 0x80 {
      var bytes: [UInt8] = []
      bytes.reserveCapacity(login.count)
      for i in login.indices { bytes.append(login[i]) }
      return output.append(initials(String(decoding: bytes, as: UTF8.self)))
    }
    TextBuilder.write(capacity: 2, to: &output) { asciiInitials(login, into: &$0) }
  }

  /// The initials of an ASCII login's bytes: the first byte after each `-`, `_` or `.` (and the
  /// first), at most two, upper-cased; the first byte when there is none; `?` for an empty login.
  private static func asciiInitials(_ login: Span<UInt8>, into out: inout TextBuilder) {
    guard !login.isEmpty else {
      out.byte(UInt8(ascii: "?"))
      return
    }
    let first = login[0]
    var atStart = true
    for i in login.indices where out.count < 2 {
      let byte = login[i]
      if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") {
        atStart = true
      } else if atStart {
        out.byte(byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") ? byte - 32 : byte)
        atStart = false
      }
    }
    if out.count == 0 { out.byte(first) }
  }
}
