// The GitHub target's header parsers: `LinkHeader.parse`, `RateLimitHeaders.parse`, and the
// classifier and ledger that consume them (internal, hence the testable import).
import HTTP

@testable import GitHub

/// The rate-limit fields, in the order bare lines of an input are assigned to them.
let rateNames = [
  "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "x-ratelimit-used",
  "x-ratelimit-resource",
  "retry-after",
]

/// A fixed clock, so runs are reproducible.
let now = 1_754_784_000.0

/// libFuzzer entry: the whole input is a `Link` value; its lines are also header fields (`name: value`,
/// or a bare value given to the next rate-limit field) for `RateLimitHeaders.parse`.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  // libFuzzer guarantees `size` readable bytes at `data` for the duration of this call.
  let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
  checkLinks(text)
  var headers = HTTPHeaders()
  var bare = 0
  for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
    if let colon = line.firstIndex(of: ":") {
      headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]))
    } else {
      headers.add(name: rateNames[bare % rateNames.count], value: String(line))
      bare += 1
    }
    checkLinks(String(line))
  }
  checkRateLimits(headers)
  return 0
}

/// Every relation is a non-empty lower-cased token and every target came from between `<` and `>`.
func checkLinks(_ value: String) {
  for (relation, target) in LinkHeader.parse(value) {
    expect(!relation.isEmpty, "empty relation")
    expect(relation == relation.lowercased(), "relation not lower-cased: \(relation)")
    expect(!relation.contains(" ") && !relation.contains("\t"), "relation with a space: \(relation)")
    expect(!target.contains(">"), "target with '>': \(target)")
    expect(containsBytes(value, "<" + target + ">"), "target not in the input: \(target)")
  }
}

/// Byte-wise substring search (String.contains compares whole characters, and a combining mark after
/// `>` would hide a match that the byte-level parser rightly made).
func containsBytes(_ haystack: String, _ needle: String) -> Bool {
  let h = Array(haystack.utf8)
  let n = Array(needle.utf8)
  guard n.count <= h.count else { return false }
  return (0...(h.count - n.count)).contains { h[$0..<($0 + n.count)].elementsEqual(n) }
}

/// The parser agrees with a plain reading of its documented rules, and the consumers stay sane.
func checkRateLimits(_ headers: HTTPHeaders) {
  let parsed = RateLimitHeaders.parse(headers)
  let expected = RateLimitHeaders(
    limit: integer(headers["x-ratelimit-limit"]), remaining: integer(headers["x-ratelimit-remaining"]),
    reset: integer(headers["x-ratelimit-reset"]), used: integer(headers["x-ratelimit-used"]),
    resource: token(headers["x-ratelimit-resource"]).map(RateLimitResource.init(name:)),
    retryAfter: integer(headers["retry-after"]))
  expect(
    parsed == (expected == RateLimitHeaders() ? nil : expected),
    "parsed \(String(describing: parsed)), expected \(expected)")
  for status in [403, 429] {
    let error = ResponseClassifier.error(
      status: status, headers: headers, body: [], resource: .search, now: now)
    guard case .rateLimited(let resource, let until, _) = error else { continue }
    expect(resource == .search, "rate limit named \(resource)")
    if parsed?.remaining != 0 { expect(until >= Int(now), "rate limit ends in the past: \(until)") }
  }
  var ledger = RateLimitLedger()
  if let parsed {
    ledger.record(parsed, resource: .search, now: now)
    ledger.reserve(.search, now: now)
    ledger.refund(.search)
    _ = ledger.refusal(.search, now: now)
    for snapshot in ledger.snapshots { expect(snapshot.remaining >= 0, "negative remaining") }
  }
}

/// Digits only after trimming spaces and tabs, at most 18 of them.
func integer(_ value: String?) -> Int? {
  guard let value else { return nil }
  let trimmed = value.trimmingPrefix(while: { $0 == " " || $0 == "\t" })
  var digits = Substring(trimmed)
  while let last = digits.last, last == " " || last == "\t" { digits.removeLast() }
  guard (1...18).contains(digits.utf8.count), digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
    return nil
  }
  return Int(digits)
}

/// Spaces and tabs dropped, ASCII lower-cased, then 1…64 of `[a-z0-9_-]`.
func token(_ value: String?) -> String? {
  guard let value else { return nil }
  let kept = value.unicodeScalars.filter { $0 != " " && $0 != "\t" }.map { Character($0) }
  let lowered = String(kept).lowercased()
  guard (1...64).contains(lowered.utf8.count),
    lowered.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 || $0 == 45 })
  else { return nil }
  return lowered
}
