import HTTP

/// Headers every response carries, and the per-kind headers of HTML answers.
enum SecurityHeaders {
  /// No inline script or style, images and everything else from this origin only.
  static let contentSecurityPolicy =
    "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; object-src 'none'; "
    + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

  /// Adds the security headers unless a handler set its own.
  static func apply(to headers: inout HTTPHeaders) {
    if !headers.contains(name: "Content-Security-Policy") {
      headers.add(name: "Content-Security-Policy", value: contentSecurityPolicy)
    }
    if !headers.contains(name: "X-Content-Type-Options") {
      headers.add(name: "X-Content-Type-Options", value: "nosniff")
    }
    if !headers.contains(name: "Referrer-Policy") {
      headers.add(name: "Referrer-Policy", value: "same-origin")
    }
  }

  /// An HTML page or fragment: always revalidated, and varying by fetch mode (fragments redirect
  /// navigations) and by encoding (`HTMLDelivery` gzips it for clients that accept gzip; naming both
  /// here spares it rewriting `Vary` on every answer).
  static let html: HTTPHeaders = [
    "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache",
    "Vary": "Sec-Fetch-Mode, Accept-Encoding",
  ]

  /// An HTML answer: `html` with the security headers in, serialised once for every answer.
  static func htmlResponse(_ status: HTTPStatus, _ body: HTTPBody) -> HTTPResponse {
    var response = htmlPrototype
    response.status = status
    response.body = body
    return response
  }

  private static let htmlPrototype: HTTPResponse = {
    var headers = html
    apply(to: &headers)
    var response = HTTPResponse(headers: headers)
    response.preserializeHeaders()
    return response
  }()
}
