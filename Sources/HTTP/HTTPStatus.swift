/// An HTTP status code with its reason phrase.
public struct HTTPStatus: Hashable, Sendable, CustomStringConvertible {
  /// The three-digit code.
  public let code: Int
  /// The reason phrase written on the status line.
  public let reasonPhrase: String

  /// A status with an explicit reason phrase.
  public init(code: Int, reasonPhrase: String) {
    self.code = code
    self.reasonPhrase = reasonPhrase
  }

  /// A status with the standard reason phrase for `code` (or an empty one if unknown).
  public init(code: Int) {
    self.init(code: code, reasonPhrase: HTTPStatus.standardPhrases[code] ?? "")
  }

  /// `"200 OK"`.
  public var description: String { "\(code) \(reasonPhrase)" }

  /// True for 1xx and for 204 and 304, which never carry a body.
  public var forbidsBody: Bool { code < 200 || code == 204 || code == 304 }

  /// `200`.
  public static let ok = HTTPStatus(code: 200)
  /// `204`.
  public static let noContent = HTTPStatus(code: 204)
  /// `301`.
  public static let movedPermanently = HTTPStatus(code: 301)
  /// `302`.
  public static let found = HTTPStatus(code: 302)
  /// `303`.
  public static let seeOther = HTTPStatus(code: 303)
  /// `304`.
  public static let notModified = HTTPStatus(code: 304)
  /// `400`.
  public static let badRequest = HTTPStatus(code: 400)
  /// `401`.
  public static let unauthorized = HTTPStatus(code: 401)
  /// `403`.
  public static let forbidden = HTTPStatus(code: 403)
  /// `404`.
  public static let notFound = HTTPStatus(code: 404)
  /// `405`.
  public static let methodNotAllowed = HTTPStatus(code: 405)
  /// `408`.
  public static let requestTimeout = HTTPStatus(code: 408)
  /// `413`.
  public static let payloadTooLarge = HTTPStatus(code: 413)
  /// `414`.
  public static let uriTooLong = HTTPStatus(code: 414)
  /// `422`.
  public static let unprocessableContent = HTTPStatus(code: 422)
  /// `429`.
  public static let tooManyRequests = HTTPStatus(code: 429)
  /// `431`.
  public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
  /// `500`.
  public static let internalServerError = HTTPStatus(code: 500)
  /// `501`.
  public static let notImplemented = HTTPStatus(code: 501)
  /// `502`.
  public static let badGateway = HTTPStatus(code: 502)
  /// `503`.
  public static let serviceUnavailable = HTTPStatus(code: 503)
  /// `504`.
  public static let gatewayTimeout = HTTPStatus(code: 504)
  /// `505`.
  public static let httpVersionNotSupported = HTTPStatus(code: 505)

  static let standardPhrases: [Int: String] = [
    100: "Continue", 200: "OK", 201: "Created", 204: "No Content", 301: "Moved Permanently",
    302: "Found", 303: "See Other", 304: "Not Modified", 307: "Temporary Redirect",
    308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
    404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable", 408: "Request Timeout",
    409: "Conflict", 410: "Gone", 411: "Length Required", 413: "Content Too Large",
    414: "URI Too Long", 415: "Unsupported Media Type", 422: "Unprocessable Content",
    429: "Too Many Requests", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
    501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout",
    505: "HTTP Version Not Supported",
  ]
}
