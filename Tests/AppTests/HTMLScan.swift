/// Reads the stable markup hooks out of rendered HTML.
enum HTMLScan {
  /// Every card's id, position and set size, in document order.
  static func cards(_ html: String) -> [(id: Int, position: Int, setsize: Int)] {
    html.matches(
      of: #/<article class="card" data-repo-id="(\d+)" aria-posinset="(\d+)" aria-setsize="(-?\d+)"/#
    )
    .compactMap { match in
      guard let id = Int(match.1), let position = Int(match.2), let size = Int(match.3) else { return nil }
      return (id, position, size)
    }
  }

  /// The `data-fragment` URL of the next trigger, unescaped.
  static func nextFragment(_ html: String) -> String? {
    html.firstMatch(of: #/<a class="next" rel="next" href="[^"]*" data-fragment="([^"]*)"/#).map {
      unescape(String($0.1))
    }
  }

  /// The `href` of `a[rel=next]`, unescaped.
  static func nextHref(_ html: String) -> String? {
    html.firstMatch(of: #/rel="next" href="([^"]*)"/#).map { unescape(String($0.1)) }
  }

  /// The `href` of `a[rel=prev]`, unescaped.
  static func prevHref(_ html: String) -> String? {
    html.firstMatch(of: #/rel="prev" href="([^"]*)"/#).map { unescape(String($0.1)) }
  }

  /// The Retry button's fragment URL, unescaped.
  static func retryFragment(_ html: String) -> String? {
    html.firstMatch(of: #/data-retry="([^"]+)"/#).map { unescape(String($0.1)) }
  }

  /// Reverses the template engine's attribute escaping.
  static func unescape(_ text: String) -> String {
    text.replacing("&quot;", with: "\"").replacing("&#39;", with: "'").replacing("&lt;", with: "<")
      .replacing("&gt;", with: ">").replacing("&amp;", with: "&")
  }

  /// `q` percent-encoded for a URL.
  static func encode(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
      }
    }
    return out
  }
}
