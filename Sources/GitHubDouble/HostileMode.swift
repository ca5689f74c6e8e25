/// One way the double can misbehave on demand, as a broken or hostile GitHub would.
///
/// A mode is set with `--mode NAME` or `POST /_double/faults?mode=NAME` (`mode=none` clears it).
/// Which items a mode spoils is drawn from the double's seed and the request target, so the same
/// request gets the same answer. Modes in the `avatar` class touch only the avatar route; all others
/// touch only the API routes.
public enum HostileMode: String, Sendable, CaseIterable {
  // Numbers.
  /// Counts at `Int.max` in every item.
  case hugeCounts = "huge-counts"
  /// Counts at `Int.min` in every item.
  case negativeCounts = "negative-counts"
  /// Counts as `1e300` floats.
  case floatCounts = "float-counts"
  /// Counts with 30 digits, beyond any 64-bit integer.
  case overflowCounts = "overflow-counts"
  /// Counts as strings (`"12"`) in some items.
  case stringCounts = "string-counts"
  /// `null` where GitHub always sends a value, in some items.
  case nullFields = "null-fields"
  /// `total_count` at `Int.max`.
  case hugeTotal = "huge-total"
  /// `total_count` below zero.
  case negativeTotal = "negative-total"
  /// Star-history totals near 1e17 and `Int.max`.
  case historyHuge = "history-huge"
  // Items.
  /// Some items with a wrong type for `id`, `owner` or `name`; the rest are good.
  case malformedItems = "malformed-items"
  /// Numbers, strings, `null` and arrays mixed into `items`.
  case junkItems = "junk-items"
  /// Every item with the same `id`.
  case duplicateIDs = "duplicate-ids"
  /// Star-history weeks whose `days` is not 7 long, or whose `week` is a string.
  case historyBadWeeks = "history-bad-weeks"
  /// A star history that is an object instead of an array.
  case historyObject = "history-object"
  // Text.
  /// Raw bytes that are not UTF-8 inside descriptions.
  case invalidUTF8 = "invalid-utf8"
  /// `\ud800` lone surrogates inside names and descriptions.
  case loneSurrogate = "lone-surrogate"
  /// NUL, ESC, bell and other control characters inside names and descriptions.
  case controlChars = "control-chars"
  /// A 2 MB description in the first item.
  case hugeStrings = "huge-strings"
  /// A `license` nested 5000 arrays deep.
  case deepNesting = "deep-nesting"
  // Envelopes.
  /// A 200 with an empty body.
  case emptyBody = "empty-body"
  /// A 200 with an HTML body.
  case notJSON = "not-json"
  /// A 200 whose `items` is an object and `total_count` a string.
  case wrongEnvelope = "wrong-envelope"
  /// JSON cut off halfway.
  case truncated = "truncated"
  /// Every search page short (a third of `per_page`) with `incomplete_results: true`.
  case shortPages = "short-pages"
  // Rate limits.
  /// A 200 with `x-ratelimit-remaining: 0` and a reset ten years ahead.
  case resetFarFuture = "reset-far-future"
  /// A 200 with `x-ratelimit-remaining: 0` and a reset in 1970.
  case resetPast = "reset-past"
  /// A primary-limit 403 with a reset ten years ahead.
  case primaryFarFuture = "primary-far-future"
  /// A secondary-limit 403 with `Retry-After: 999999999999`.
  case retryAfterHuge = "retry-after-huge"
  /// A secondary-limit 403 with `Retry-After: -30`.
  case retryAfterNegative = "retry-after-negative"
  /// A secondary-limit 403 with `Retry-After: soon`.
  case retryAfterGarbage = "retry-after-garbage"
  /// A 200 whose rate-limit headers are words and negative numbers.
  case rateGarbage = "ratelimit-garbage"
  /// A 429 with no headers and no body.
  case bare429 = "429-bare"
  // Forbidden.
  /// A 403 with an HTML body about abuse detection.
  case abuseHTML = "abuse-html"
  /// A 403 with GitHub's older "abuse detection mechanism" JSON message.
  case abuseJSON = "abuse-json"
  /// A 403 with an empty body.
  case forbiddenEmpty = "forbidden-empty"
  // Compression, size and framing.
  /// A gzip body that inflates to 64 MiB of spaces.
  case gzipBomb = "gzip-bomb"
  /// `Content-Encoding: gzip` on bytes that are not gzip.
  case gzipInvalid = "gzip-invalid"
  /// 40 MB of JSON whitespace before the real body.
  case hugeBody = "huge-body"
  /// One response header of 256 KB.
  case hugeHeader = "huge-header"
  /// 5000 response headers.
  case manyHeaders = "many-headers"
  /// The connection is cut in the middle of the body.
  case dropConnection = "drop-connection"
  /// The body trickles in over about 3 seconds.
  case slowBody = "slow-body"
  /// A 502 with an HTML body, as from a proxy.
  case badGateway = "bad-gateway"
  /// API requests never answer (until the client leaves or the hang limit passes).
  case apiHang = "api-hang"
  // Redirects.
  /// A 302 to the same URL.
  case redirectLoop = "redirect-loop"
  /// A 302 to a cloud metadata address.
  case redirectMetadata = "redirect-metadata"
  // The token.
  /// The request's token inside a 200 body (descriptions and names).
  case echoToken = "echo-token"
  /// The token `\u`-escaped, placed across the 300th character of a description.
  case echoTokenEscaped = "echo-token-escaped"
  /// The token inside a 403 and a 422 message.
  case echoTokenError = "echo-token-error"
  // The avatar host.
  /// Avatars take 3 s each.
  case avatarSlow = "avatar-slow"
  /// Avatars never answer (until the client leaves or the hang limit passes).
  case avatarHang = "avatar-hang"
  /// Avatars served as `text/html`.
  case avatarNotImage = "avatar-not-image"
  /// A 4 MB avatar.
  case avatarHuge = "avatar-huge"
  /// An avatar that inflates to 64 MiB.
  case avatarGzipBomb = "avatar-gzip-bomb"

  /// Whether the mode applies to the avatar route (true) or to API routes (false).
  public var targetsAvatars: Bool { rawValue.hasPrefix("avatar-") }

  /// A short class name for reports: numbers, items, text, envelope, rate-limit, forbidden, transport,
  /// redirect, token or avatar.
  public var category: String {
    switch self {
    case .hugeCounts, .negativeCounts, .floatCounts, .overflowCounts, .stringCounts, .nullFields, .hugeTotal,
      .negativeTotal, .historyHuge:
      "numbers"
    case .malformedItems, .junkItems, .duplicateIDs, .historyBadWeeks, .historyObject: "items"
    case .invalidUTF8, .loneSurrogate, .controlChars, .hugeStrings, .deepNesting: "text"
    case .emptyBody, .notJSON, .wrongEnvelope, .truncated, .shortPages: "envelope"
    case .resetFarFuture, .resetPast, .primaryFarFuture, .retryAfterHuge, .retryAfterNegative,
      .retryAfterGarbage, .rateGarbage, .bare429:
      "rate-limit"
    case .abuseHTML, .abuseJSON, .forbiddenEmpty: "forbidden"
    case .gzipBomb, .gzipInvalid, .hugeBody, .hugeHeader, .manyHeaders, .dropConnection, .slowBody,
      .badGateway,
      .apiHang:
      "transport"
    case .redirectLoop, .redirectMetadata: "redirect"
    case .echoToken, .echoTokenEscaped, .echoTokenError: "token"
    case .avatarSlow, .avatarHang, .avatarNotImage, .avatarHuge, .avatarGzipBomb: "avatar"
    }
  }
}
