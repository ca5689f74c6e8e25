import HTTP

/// GitHub's rate-limit response headers, parsed strictly (digits only; anything else is absent).
public struct RateLimitHeaders: Sendable, Equatable {
  /// `x-ratelimit-limit`.
  public var limit: Int?
  /// `x-ratelimit-remaining`.
  public var remaining: Int?
  /// `x-ratelimit-reset`, Unix seconds.
  public var reset: Int?
  /// `x-ratelimit-used`.
  public var used: Int?
  /// `x-ratelimit-resource`, lower-cased.
  public var resource: RateLimitResource?
  /// `retry-after` in seconds (the HTTP-date form is not used by GitHub and is ignored).
  public var retryAfter: Int?

  /// Headers from their parts.
  public init(
    limit: Int? = nil, remaining: Int? = nil, reset: Int? = nil, used: Int? = nil,
    resource: RateLimitResource? = nil,
    retryAfter: Int? = nil
  ) {
    self.limit = limit
    self.remaining = remaining
    self.reset = reset
    self.used = used
    self.resource = resource
    self.retryAfter = retryAfter
  }

  /// The rate-limit fields present in `headers`, or nil when none is present and valid.
  public static func parse(_ headers: HTTPHeaders) -> RateLimitHeaders? {
    var result = RateLimitHeaders()
    result.limit = integer(headers["x-ratelimit-limit"])
    result.remaining = integer(headers["x-ratelimit-remaining"])
    result.reset = integer(headers["x-ratelimit-reset"])
    result.used = integer(headers["x-ratelimit-used"])
    result.resource = token(headers["x-ratelimit-resource"]).map(RateLimitResource.init(name:))
    result.retryAfter = integer(headers["retry-after"])
    return result == RateLimitHeaders() ? nil : result
  }

  /// A non-negative decimal integer surrounded by optional spaces; nil on anything else or overflow.
  static func integer(_ value: String?) -> Int? {
    guard let value else { return nil }
    let trimmed = value.utf8.drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }
    guard !trimmed.isEmpty, trimmed.count <= 18 else { return nil }
    var result = 0
    for byte in trimmed.reversed() {
      guard byte >= 48 && byte <= 57 else { return nil }
      result = result * 10 + Int(byte - 48)
    }
    return result
  }

  /// A resource name: 1…64 of `[a-z0-9_-]` after lower-casing, else nil.
  static func token(_ value: String?) -> String? {
    guard let value else { return nil }
    var out: [UInt8] = []
    for byte in value.utf8 {
      switch byte {
      case 32, 9: continue
      case UInt8(ascii: "A")...UInt8(ascii: "Z"): out.append(byte | 0x20)
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"),
        UInt8(ascii: "-"):
        out.append(byte)
      default: return nil
      }
      if out.count > 64 { return nil }
    }
    return out.isEmpty ? nil : String(decoding: out, as: UTF8.self)
  }
}
