import HTTP

/// Per-request information the server passes to handlers.
public struct RequestContext: Sendable {
  /// A short unique id, also written in the access log line.
  public let requestID: String
  /// Path parameters filled by `Router`, percent-decoded.
  public var parameters: [String: String]
  /// The name the matched route was registered under (`Router`); empty before routing.
  public internal(set) var route = ""
  /// The peer's IP address (a proxy's, when one is in front).
  public let remoteAddress: String
  /// The real client: the peer, or the address a trusted proxy forwarded (`--trusted-proxies`).
  /// Per-client decisions (limits, logs) use this one.
  public let clientAddress: String
  /// Whether the client's own connection is TLS, as a trusted proxy said in `X-Forwarded-Proto`.
  /// Decides `Secure` cookies; false from untrusted peers whatever they send.
  public let isSecure: Bool

  /// A context from its parts (the server builds these; tests may too). The client defaults to the peer.
  public init(
    requestID: String, parameters: [String: String] = [:], remoteAddress: String = "",
    clientAddress: String? = nil, isSecure: Bool = false
  ) {
    self.requestID = requestID
    self.parameters = parameters
    self.remoteAddress = remoteAddress
    self.clientAddress = clientAddress ?? remoteAddress
    self.isSecure = isSecure
  }
}

/// A request handler. A thrown `HTTPError` becomes its own response; any other error becomes a 500.
public typealias HTTPHandler = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse

/// One access-log event; the server calls the log sink (and the `AccessLogWriter`) once per request.
public struct AccessLogEntry: Sendable {
  /// The request id (as in `RequestContext`), or `-` for requests that never parsed.
  public var requestID: String
  /// The method token, or `-`.
  public var method: String
  /// The raw request target (path and query, still percent-encoded), or `-`.
  public var target: String
  /// The status code sent.
  public var status: Int
  /// Body bytes sent.
  public var bytes: Int
  /// Time from the complete request to the last byte queued.
  public var duration: Duration
  /// The real client's address (`RequestContext.clientAddress`), or `-`.
  public var client: String = "-"

  /// The target up to `?`.
  public var path: Substring {
    if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return target[..<q] }
    return target[...]
  }

  /// The access-log line (`id GET /path?q 200 1234B 0.420ms`) without its newline, as `write(into:)`
  /// formats it.
  public var line: String {
    var buffer: [UInt8] = []
    write(into: &buffer)
    return String(decoding: buffer.dropLast(), as: UTF8.self)
  }
}
