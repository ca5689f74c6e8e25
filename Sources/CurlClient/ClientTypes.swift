import HTTP

/// One outgoing HTTP request for a client transport.
public struct ClientRequest: Sendable {
  /// Absolute `http` or `https` URL.
  public var url: String
  /// The method; GET unless set.
  public var method: HTTPMethod
  /// Request headers, sent as given.
  public var headers: HTTPHeaders
  /// Total time allowed for this request; the client's default when nil.
  public var timeout: Duration?
  /// Largest body accepted for this request; the client's default when nil.
  public var maxResponseBytes: Int?
  /// The request body (a form or JSON for the OAuth calls); empty for none. Sent with any method but
  /// GET and HEAD, with `Content-Length`.
  public var body: [UInt8]

  /// A request from its parts.
  public init(
    url: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], timeout: Duration? = nil,
    maxResponseBytes: Int? = nil, body: [UInt8] = []
  ) {
    self.url = url
    self.method = method
    self.headers = headers
    self.timeout = timeout
    self.maxResponseBytes = maxResponseBytes
    self.body = body
  }
}

/// A complete response received by a client transport.
public struct ClientResponse: Sendable {
  /// The final status.
  public var status: HTTPStatus
  /// The response headers (names as received, duplicates kept).
  public var headers: HTTPHeaders
  /// The decoded body bytes.
  public var body: [UInt8]

  /// A response from its parts.
  public init(status: HTTPStatus, headers: HTTPHeaders = [:], body: [UInt8] = []) {
    self.status = status
    self.headers = headers
    self.body = body
  }
}

/// Why a client request failed before a response was received.
public enum ClientError: Error, Sendable, Equatable {
  /// The URL is not an absolute http or https URL.
  case invalidURL(String)
  /// The host name could not be resolved.
  case cannotResolve(String)
  /// No connection could be made (refused, unreachable).
  case cannotConnect(String)
  /// The connect or total timeout elapsed.
  case timedOut
  /// TLS handshake or certificate verification failed.
  case tls(String)
  /// The body exceeded the allowed size.
  case tooLarge(limit: Int)
  /// The calling task was cancelled.
  case cancelled
  /// Any other transport failure, with libcurl's message.
  case other(String)
}

/// Something that performs HTTP requests. `CurlHTTPClient` in production; tests inject fakes.
public protocol HTTPClientTransport: Sendable {
  /// Performs `request` and returns the whole response. A cancelled caller gets `.cancelled`.
  func execute(_ request: ClientRequest) async throws(ClientError) -> ClientResponse
}
