import HTTP

/// GitHub's response shapes: headers, error bodies, `Link` and ETags.
enum GitHubResponses {
  static let searchDocs = "https://docs.github.com/rest/search/search#search-repositories"
  static let rateDocs = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"

  /// Headers every JSON API answer carries.
  static func apiHeaders() -> HTTPHeaders {
    [
      "Content-Type": "application/json; charset=utf-8",
      "X-GitHub-Media-Type": "github.v3; format=json",
      "X-GitHub-Api-Version-Selected": "2022-11-28",
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Expose-Headers":
        "ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, X-RateLimit-Remaining, "
        + "X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset, X-OAuth-Scopes, "
        + "X-Accepted-OAuth-Scopes, X-Poll-Interval, X-GitHub-Media-Type, X-GitHub-SSO, "
        + "X-GitHub-Request-Id, Deprecation, Sunset",
      "X-Content-Type-Options": "nosniff",
    ]
  }

  static func rateHeaders(_ w: RateWindow, _ r: DoubleResource) -> HTTPHeaders {
    [
      "x-ratelimit-limit": String(w.limit),
      "x-ratelimit-remaining": String(w.remaining),
      "x-ratelimit-reset": String(w.reset),
      "x-ratelimit-used": String(w.used),
      "x-ratelimit-resource": r.rawValue,
    ]
  }

  static func json(_ status: HTTPStatus, _ body: [UInt8], extra: HTTPHeaders = [:]) -> HTTPResponse {
    var h = apiHeaders()
    for f in extra { h.add(name: f.name, value: f.value) }
    return HTTPResponse(status: status, headers: h, body: .bytes(body))
  }

  /// `{"message": …, "documentation_url": …, "status": "404"}`.
  static func error(
    _ status: HTTPStatus, message: String, documentation: String?, extra: HTTPHeaders = [:]
  ) -> HTTPResponse {
    var w = JSONWriter()
    w.objectStart()
    w.field("message", message)
    if let documentation { w.field("documentation_url", documentation) }
    w.field("status", String(status.code))
    w.objectEnd()
    return json(status, w.bytes, extra: extra)
  }

  /// `422 Validation Failed` with GitHub's `errors[]` for a bad `q`.
  static func validationFailed(code: String, message: String?) -> HTTPResponse {
    var w = JSONWriter()
    w.objectStart()
    w.field("message", "Validation Failed")
    w.key("errors")
    w.arrayStart()
    w.objectStart()
    if let message { w.field("message", message) }
    w.field("resource", "Search")
    w.field("field", "q")
    w.field("code", code)
    w.objectEnd()
    w.arrayEnd()
    w.field("documentation_url", searchDocs)
    w.field("status", "422")
    w.objectEnd()
    return json(.unprocessableContent, w.bytes)
  }

  /// GitHub's answer for a page that starts past the 1000th result (`(page - 1) * per_page >= 1000`):
  /// no `errors` array, and the old documentation address, as api.github.com sends it.
  static func thousandCap(extra: HTTPHeaders) -> HTTPResponse {
    var w = JSONWriter()
    w.objectStart()
    w.field("message", "Only the first 1000 search results are available")
    w.field("documentation_url", "https://docs.github.com/v3/search/")
    w.field("status", "422")
    w.objectEnd()
    return json(.unprocessableContent, w.bytes, extra: extra)
  }

  static func primaryLimit(status: Int, headers: HTTPHeaders, authenticated: Bool, address: String)
    -> HTTPResponse
  {
    let host = hostPart(address)
    let message =
      authenticated
      ? "API rate limit exceeded for user ID 1."
      : "API rate limit exceeded for \(host). (But here's the good news: Authenticated requests get a "
        + "higher rate limit. Check out the documentation for more details.)"
    return error(
      HTTPStatus(code: status), message: message, documentation: rateDocs + "#primary-rate-limit",
      extra: headers)
  }

  static func secondaryLimit(headers: HTTPHeaders, requestID: String) -> HTTPResponse {
    let message =
      "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
      + "If you reach out to GitHub Support for help, please include the request ID \(requestID)."
    return error(
      .forbidden, message: message,
      documentation: "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api"
        + "#about-secondary-rate-limits", extra: headers)
  }

  static func serverError(_ code: Int) -> HTTPResponse {
    let status = HTTPStatus(code: code)
    return error(status, message: status.reasonPhrase, documentation: nil)
  }

  /// GitHub's `Link`: prev, next, last, first; absolute URLs keeping the request's query.
  static func link(base: String, path: Substring, query: Substring?, page: Int, lastPage: Int) -> String? {
    var rels: [(String, Int)] = []
    if page > 1 { rels.append(("prev", min(page - 1, max(lastPage, 1)))) }
    if page < lastPage {
      rels.append(("next", page + 1))
      rels.append(("last", lastPage))
    }
    if page > 1 { rels.append(("first", 1)) }
    if rels.isEmpty { return nil }
    return rels.map { "<\(pageURL(base: base, path: path, query: query, page: $0.1))>; rel=\"\($0.0)\"" }
      .joined(separator: ", ")
  }

  /// The request URL with `page` replaced in place (or appended), other parameters kept verbatim.
  static func pageURL(base: String, path: Substring, query: Substring?, page: Int) -> String {
    var parts = (query ?? "").split(separator: "&", omittingEmptySubsequences: true).map(String.init)
    if let i = parts.firstIndex(where: { $0 == "page" || $0.hasPrefix("page=") }) {
      parts[i] = "page=\(page)"
    } else {
      parts.append("page=\(page)")
    }
    return base + path + "?" + parts.joined(separator: "&")
  }

  /// A strong ETag from body bytes (two FNV-1a passes, 32 hex digits).
  static func etag(_ body: [UInt8], weak: Bool) -> String {
    var a: UInt64 = 0xCBF2_9CE4_8422_2325
    var b: UInt64 = 0x84222325CBF29CE4
    for byte in body {
      a = (a ^ UInt64(byte)) &* 0x100_0000_01B3
      b = (b ^ UInt64(byte)) &* 0x100_0000_01B3 ^ (b >> 29)
    }
    let hex = hex16(SplitMix64.mix(a)) + hex16(SplitMix64.mix(b))
    return (weak ? "W/\"" : "\"") + hex + "\""
  }

  /// Whether `If-None-Match` lists this ETag (weak comparison, `*` matches).
  static func matches(_ request: HTTPRequest, _ etag: String) -> Bool {
    guard let inm = request.headers["If-None-Match"] else { return false }
    let bare = strip(etag)
    for candidate in inm.split(separator: ",") {
      let c = candidate.trimmingSpaces
      if c == "*" || strip(c) == bare { return true }
    }
    return false
  }

  private static func strip<S: StringProtocol>(_ s: S) -> Substring {
    var t = Substring(s)
    if t.hasPrefix("W/") { t = t.dropFirst(2) }
    return t
  }

  private static func hex16(_ v: UInt64) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 16 - s.count) + s
  }

  private static func hostPart(_ address: String) -> String {
    if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
      return String(address[address.index(after: address.startIndex)..<end])
    }
    let colons = address.filter { $0 == ":" }.count
    if colons == 1, let c = address.firstIndex(of: ":") { return String(address[..<c]) }
    return address
  }
}
