import HTTP
import HTTPServer

/// Conditional requests: a 200 that carries an `ETag` becomes a 304 when the request's
/// `If-None-Match` names that tag (weak comparison, or `*`). Handlers only set the tag.
enum Validators {
  /// Turns `response` into a 304 for `request` when its tag matches; true when it did.
  @discardableResult
  static func apply(to response: inout HTTPResponse, for request: HTTPRequest, keepContentType: Bool = false)
    -> Bool
  {
    guard response.status == .ok, request.headers.contains(name: "If-None-Match"),
      let etag = response.headers["ETag"],
      ContentNegotiation.ifNoneMatch(request.headers, matches: etag) == true
    else { return false }
    response.status = .notModified
    response.body = .empty
    // The 304 has no body to describe. HTML answers keep theirs: their headers are prebuilt once for
    // every answer and sent as built.
    if !keepContentType { response.headers.remove(name: "Content-Type") }
    return true
  }
}
