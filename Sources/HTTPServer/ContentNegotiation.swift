import HTTP

/// The negotiation and validator rules shared by static files and the app's HTML answers.
public enum ContentNegotiation {
  /// Whether `Accept-Encoding` allows gzip: `gzip`, `x-gzip` or `*` listed with a q above zero
  /// (an explicit `gzip;q=0` wins over `*`).
  public static func acceptsGzip(_ headers: HTTPHeaders) -> Bool {
    // Every request asks this, so the value is scanned in place, with no arrays or substrings built.
    var wildcard = false
    for field in headers.fields where HTTPHeaders.equalsIgnoringCase(field.name, "Accept-Encoding") {
      var value = field.value
      // The buffer is only read inside the closure that lends it.
      let verdict = value.withUTF8 { gzipVerdict(in: $0, wildcard: &wildcard) }
      if let verdict { return verdict }
    }
    return wildcard
  }

  /// Scans one `Accept-Encoding` value: whether gzip is allowed, when it is listed; a listed `*` sets
  /// `wildcard` to whether it is allowed.
  private static func gzipVerdict(in bytes: UnsafeBufferPointer<UInt8>, wildcard: inout Bool) -> Bool? {
    var start = 0
    while start < bytes.count {
      var end = start
      while end < bytes.count && bytes[end] != UInt8(ascii: ",") { end += 1 }
      var semicolon = start
      while semicolon < end && bytes[semicolon] != UInt8(ascii: ";") { semicolon += 1 }
      let coding = HTTPHeaders.trimmed(bytes, start, semicolon)
      let allowed =
        semicolon == end || qualityAboveZero(bytes, HTTPHeaders.trimmed(bytes, semicolon + 1, end))
      if matches(bytes, coding, "gzip") || matches(bytes, coding, "x-gzip") { return allowed }
      if matches(bytes, coding, "*") { wildcard = allowed }
      start = end + 1
    }
    return nil
  }

  /// Whether `If-None-Match` matches `etag` by the weak comparison RFC 9110 asks for (`W/` ignored),
  /// or is `*`; nil when the request has no `If-None-Match`.
  public static func ifNoneMatch(_ headers: HTTPHeaders, matches etag: String) -> Bool? {
    guard let field = headers["If-None-Match"] else { return nil }
    let wanted = etag.hasPrefix("W/") ? etag.utf8.dropFirst(2) : etag.utf8[...]
    for element in field.utf8.split(separator: UInt8(ascii: ",")) {
      var tag = trimmed(element)
      if tag.elementsEqual("*".utf8) { return true }
      if tag.starts(with: "W/".utf8) { tag = tag.dropFirst(2) }
      if tag.elementsEqual(wanted) { return true }
    }
    return false
  }

  /// An entity tag naming the gzip form of the representation `etag` names (`"x"` -> `"x-gz"`).
  static func gzipETag(_ etag: String) -> String {
    guard etag.hasSuffix("\"") else { return etag + "-gz" }
    return String(etag.dropLast()) + "-gz\""
  }

  private static func trimmed(_ bytes: String.UTF8View.SubSequence) -> String.UTF8View.SubSequence {
    var s = bytes
    while let f = s.first, f == 0x20 || f == 0x09 { s = s.dropFirst() }
    while let l = s.last, l == 0x20 || l == 0x09 { s = s.dropLast() }
    return s
  }

  /// Whether `bytes[range]` is `word`, ignoring ASCII case.
  private static func matches(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString)
    -> Bool
  {
    // The rebased slice and the static string's bytes are only read during this call.
    HTTPHeaders.equalsIgnoringCase(
      UnsafeBufferPointer(rebasing: bytes[range]),
      UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
  }

  /// `q=0`, `q=0.0`, `q=0.000` are zero; anything else that parses as q (or is no q) is taken as above
  /// zero. The weight ends at a further `;`.
  private static func qualityAboveZero(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
    guard range.count >= 2, bytes[range.lowerBound] | 0x20 == UInt8(ascii: "q"),
      bytes[range.lowerBound + 1] == UInt8(ascii: "=")
    else { return true }
    var i = range.lowerBound + 2
    var end = i
    while end < range.upperBound && bytes[end] != UInt8(ascii: ";") { end += 1 }
    while end > i && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
    if i == end { return true }
    while i < end {
      if bytes[i] != UInt8(ascii: "0") && bytes[i] != UInt8(ascii: ".") { return true }
      i += 1
    }
    return false
  }
}

extension ContentNegotiation {
  /// A strong entity tag for `bytes`: 16 hex digits of a 64-bit hash and the length, such as
  /// `"9f2c4e01a3b5d7f6-8f3a"`. The hash runs four independent lanes of 16 bytes, so a 40 KB body costs
  /// about a microsecond; it names versions of an answer and is no defence against forgery.
  public static func entityTag(for bytes: [UInt8]) -> String { entityTag(for: bytes, gzip: false) }

  /// The tag `entityTag(for:)` gives, or its `gzipETag` form when `gzip`, written in one string.
  public static func entityTag(for bytes: [UInt8], gzip: Bool) -> String {
    let hash = bytes.withUnsafeBytes { Self.hash($0) }
    var length = 1
    while length < 16 && bytes.count >> (4 * length) != 0 { length += 1 }
    let capacity = 1 + 16 + 1 + length + (gzip ? 3 : 0) + 1
    return String(unsafeUninitializedCapacity: capacity) { out in
      // Writes exactly `capacity` bytes, each index below it.
      let digits: StaticString = "0123456789abcdef"
      let hex = digits.utf8Start
      out[0] = UInt8(ascii: "\"")
      for i in 0..<16 { out[1 + i] = hex[Int(truncatingIfNeeded: hash >> (60 - 4 * UInt64(i))) & 15] }
      out[17] = UInt8(ascii: "-")
      for i in 0..<length { out[18 + i] = hex[(bytes.count >> (4 * (length - 1 - i))) & 15] }
      var end = 18 + length
      if gzip {
        out[end] = UInt8(ascii: "-")
        out[end + 1] = UInt8(ascii: "g")
        out[end + 2] = UInt8(ascii: "z")
        end += 3
      }
      out[end] = UInt8(ascii: "\"")
      return end + 1
    }
  }

  static func hash(_ raw: UnsafeRawBufferPointer) -> UInt64 {
    // Four lanes, each folding 16 bytes into its state with one 64×64→128-bit multiply (the wyhash
    // step): about twice the bytes per cycle of a 64-bit multiply per 8 bytes.
    let k0: UInt64 = 0xA076_1D64_78BD_642F
    let k1: UInt64 = 0xE703_7ED1_A0B4_28DB
    let k2: UInt64 = 0x8EBC_6AF0_9C88_C6E3
    let k3: UInt64 = 0x5899_65CC_7537_4CC3
    let count = raw.count
    var a = k0 ^ UInt64(count)
    var b = k1
    var c = k2
    var d = k3
    var offset = 0
    // Every load stays inside the buffer: the loops stop 64, 16 and 8 bytes short of its end.
    @inline(__always) func word(_ at: Int) -> UInt64 {
      raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)
    }
    while offset + 64 <= count {
      a = fold(word(offset) ^ k1, word(offset + 8) ^ a)
      b = fold(word(offset + 16) ^ k2, word(offset + 24) ^ b)
      c = fold(word(offset + 32) ^ k3, word(offset + 40) ^ c)
      d = fold(word(offset + 48) ^ k0, word(offset + 56) ^ d)
      offset += 64
    }
    var h = fold(a ^ k2, b ^ k3) ^ fold(c ^ k0, d ^ k1)
    while offset + 16 <= count {
      h = fold(word(offset) ^ k1, word(offset + 8) ^ h)
      offset += 16
    }
    if offset + 8 <= count {
      h = fold(word(offset) ^ k2, h ^ k3)
      offset += 8
    }
    var tail: UInt64 = 0
    var shift: UInt64 = 0
    while offset < count {
      tail |= UInt64(raw[offset]) << shift
      shift += 8
      offset += 1
    }
    return mix(fold(h ^ k0, tail ^ (shift << 56) ^ k1))
  }

  /// The high and low halves of the full product, xored.
  @inline(__always) private static func fold(_ x: UInt64, _ y: UInt64) -> UInt64 {
    let (high, low) = x.multipliedFullWidth(by: y)
    return high ^ low
  }

  /// MurmurHash3's 64-bit finaliser: every input bit reaches every output bit.
  private static func mix(_ value: UInt64) -> UInt64 {
    var x = value
    x ^= x >> 33
    x &*= 0xFF51_AFD7_ED55_8CCD
    x ^= x >> 33
    x &*= 0xC4CE_B9FE_1A85_EC53
    x ^= x >> 33
    return x
  }
}
