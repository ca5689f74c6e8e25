import HTTP

/// The negotiation and validator rules shared by static files and the app's HTML answers.
public enum ContentNegotiation {
  /// Whether `Accept-Encoding` allows gzip: `gzip`, `x-gzip` or `*` listed with a q above zero
  /// (an explicit `gzip;q=0` wins over `*`).
  public static func acceptsGzip(_ headers: HTTPHeaders) -> Bool {
    var wildcard = false
    for field in headers.fields where HTTPHeaders.equalsIgnoringCase(field.name, "Accept-Encoding") {
      for element in field.value.utf8.split(separator: UInt8(ascii: ",")) {
        let parts = element.split(separator: UInt8(ascii: ";"), maxSplits: 1)
        guard let coding = parts.first.map(trimmed) else { continue }
        let allowed = parts.count < 2 || qualityAboveZero(trimmed(parts[1]))
        if equalsIgnoringCase(coding, "gzip") || equalsIgnoringCase(coding, "x-gzip") {
          return allowed
        }
        if coding.elementsEqual("*".utf8) { wildcard = allowed }
      }
    }
    return wildcard
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
  public static func gzipETag(_ etag: String) -> String {
    guard etag.hasSuffix("\"") else { return etag + "-gz" }
    return String(etag.dropLast()) + "-gz\""
  }

  private static func trimmed(_ bytes: String.UTF8View.SubSequence) -> String.UTF8View.SubSequence {
    var s = bytes
    while let f = s.first, f == 0x20 || f == 0x09 { s = s.dropFirst() }
    while let l = s.last, l == 0x20 || l == 0x09 { s = s.dropLast() }
    return s
  }

  private static func equalsIgnoringCase(_ bytes: String.UTF8View.SubSequence, _ word: String) -> Bool {
    HTTPHeaders.equalsIgnoringCase(Substring(bytes), word)
  }

  /// `q=0`, `q=0.0`, `q=0.000` are zero; anything else that parses as q is taken as above zero.
  private static func qualityAboveZero(_ parameter: String.UTF8View.SubSequence) -> Bool {
    let text = Substring(parameter)
    guard text.count >= 2, HTTPHeaders.equalsIgnoringCase(text.prefix(2), "q=") else { return true }
    let value = text.dropFirst(2)
    return !value.allSatisfy { $0 == "0" || $0 == "." } || value.isEmpty
  }
}

extension ContentNegotiation {
  /// A strong entity tag for `bytes`: 16 hex digits of a 64-bit hash and the length, such as
  /// `"9f2c4e01a3b5d7f6-8f3a"`. The hash runs four independent lanes of 8 bytes, so a 40 KB body costs
  /// about two microseconds; it names versions of an answer and is no defence against forgery.
  public static func entityTag(for bytes: [UInt8]) -> String {
    let hash = bytes.withUnsafeBytes { Self.hash($0) }
    var tag = "\""
    let hex = String(hash, radix: 16)
    tag.append(String(repeating: "0", count: 16 - hex.utf8.count))
    tag.append(hex)
    tag.append("-")
    tag.append(String(bytes.count, radix: 16))
    tag.append("\"")
    return tag
  }

  static func hash(_ raw: UnsafeRawBufferPointer) -> UInt64 {
    let k: UInt64 = 0x9E37_79B9_7F4A_7C15
    var a: UInt64 = 0x243F_6A88_85A3_08D3
    var b: UInt64 = 0x1319_8A2E_0370_7344
    var c: UInt64 = 0xA409_3822_299F_31D0
    var d: UInt64 = 0x082E_FA98_EC4E_6C89 ^ UInt64(raw.count)
    var offset = 0
    // Every load stays inside the buffer: the loops stop 32 and 8 bytes short of its end.
    while offset + 32 <= raw.count {
      a = (a ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* k
      b = (b ^ raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)) &* k
      c = (c ^ raw.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self)) &* k
      d = (d ^ raw.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self)) &* k
      a ^= a >> 31
      b ^= b >> 29
      c ^= c >> 27
      d ^= d >> 25
      offset += 32
    }
    var h = mix(a) ^ mix(b &+ 1) ^ mix(c &+ 2) ^ mix(d &+ 3)
    while offset + 8 <= raw.count {
      h = mix(h ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
      offset += 8
    }
    var tail: UInt64 = 0
    var shift: UInt64 = 0
    while offset < raw.count {
      tail |= UInt64(raw[offset]) << shift
      shift += 8
      offset += 1
    }
    return mix(h ^ tail ^ (shift << 56))
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
