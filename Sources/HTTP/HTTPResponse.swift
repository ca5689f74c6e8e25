/// A response a handler returns: status, headers and a fixed or streamed body.
///
/// The server adds `Date`, `Server`, `Content-Length` (fixed bodies) or
/// `Transfer-Encoding: chunked` (streamed bodies) and `Connection` itself.
public struct HTTPResponse: Sendable {
  /// The status.
  public var status: HTTPStatus
  /// Headers set by the handler. Changing them drops `serializedHeaders`.
  public var headers: HTTPHeaders { didSet { serializedHeaders = nil } }
  /// `headers` already serialised by `HTTPResponseSerializer.serialize(_:)`, for answers built once
  /// and sent many times (static files); the server then copies these bytes instead.
  public private(set) var serializedHeaders: [UInt8]?
  /// The body.
  public var body: HTTPBody

  /// A response from its parts.
  public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: HTTPBody = .empty) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  /// Serialises the headers once, so that every send of this value copies bytes instead.
  public mutating func preserializeHeaders() {
    serializedHeaders = HTTPResponseSerializer.serialize(headers)
  }

  /// Replaces every field named `name` with one field, or adds it; an added field is appended to
  /// `serializedHeaders` too, so a prebuilt answer given a validator stays prebuilt.
  public mutating func replaceOrAddHeader(name: String, value: String) {
    guard var serialized = serializedHeaders, !headers.contains(name: name) else {
      headers.replaceOrAdd(name: name, value: value)
      return
    }
    // Dropped first, so that the local copy is the only one and grows in place.
    serializedHeaders = nil
    headers.add(name: name, value: value)
    HTTPResponseSerializer.writeField(name: name, value: value, into: &serialized)
    serializedHeaders = serialized
  }

  /// A plain-text response, used for errors the user may read.
  public static func text(_ status: HTTPStatus, _ message: String, headers: HTTPHeaders = [:]) -> HTTPResponse
  {
    var h = headers
    h.replaceOrAdd(name: "Content-Type", value: "text/plain; charset=utf-8")
    return HTTPResponse(status: status, headers: h, body: .bytes(Array((message + "\n").utf8)))
  }
}

/// A response body: bytes known up front, or a stream of chunks flushed as they come.
public enum HTTPBody: Sendable {
  /// A fixed body, sent with `Content-Length`.
  case bytes([UInt8])
  /// A streamed body, sent chunked; each element is flushed as soon as it arrives.
  /// Ending the stream with an error aborts the connection (the response is incomplete).
  case stream(AsyncThrowingStream<[UInt8], any Error>)

  /// An empty fixed body.
  public static let empty = HTTPBody.bytes([])
}

/// An error that carries the HTTP status (and a short plain-text reason) to answer with.
public struct HTTPError: Error, Sendable, Equatable {
  /// The status to answer with.
  public var status: HTTPStatus
  /// A short reason, written as the plain-text body.
  public var message: String
  /// Extra headers such as `Allow` for 405.
  public var headers: HTTPHeaders

  /// An error with a status and a reason.
  public init(_ status: HTTPStatus, _ message: String, headers: HTTPHeaders = [:]) {
    self.status = status
    self.message = message
    self.headers = headers
  }

  /// The plain-text response for this error.
  public var response: HTTPResponse { .text(status, message, headers: headers) }
}
