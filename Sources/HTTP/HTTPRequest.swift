import Encodings

/// A parsed HTTP/1.x request head plus its (small, fully read) body.
public struct HTTPRequest: Sendable {
  /// The request method.
  public var method: HTTPMethod
  /// The request target exactly as received (origin-form: path and optional query).
  public var target: String
  /// The major and minor protocol version, for example (1, 1).
  public var version: HTTPVersion
  /// The header fields in order, duplicates kept.
  public var headers: HTTPHeaders
  /// The body, read in full (bodies are only accepted with Content-Length and a small limit).
  public var body: [UInt8]

  /// A request from its parts.
  public init(
    method: HTTPMethod, target: String, version: HTTPVersion = .http11, headers: HTTPHeaders = [:],
    body: [UInt8] = []
  ) {
    self.method = method
    self.target = target
    self.version = version
    self.headers = headers
    self.body = body
  }

  /// The raw (still percent-encoded) path: the target up to `?`.
  public var path: Substring {
    // By byte: `?` is ASCII, and a character-wise search costs several times more per request.
    if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return target[..<q] }
    return target[...]
  }

  /// The raw query string after `?`, or nil.
  public var query: Substring? {
    guard let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
    return target[target.utf8.index(after: q)...]
  }

  /// Decoded query parameters in order (`+` is a space, percent escapes decoded).
  public var queryItems: [(name: String, value: String)] {
    guard let query else { return [] }
    return URLEncoding.parseQuery(query)
  }

  /// The first decoded value of a query parameter, or nil.
  public func queryValue(_ name: String) -> String? {
    queryItems.first { $0.name == name }?.value
  }
}

/// An HTTP protocol version.
public struct HTTPVersion: Hashable, Sendable, CustomStringConvertible {
  /// The major version digit.
  public var major: Int
  /// The minor version digit.
  public var minor: Int
  /// HTTP/1.0.
  public static let http10 = HTTPVersion(major: 1, minor: 0)
  /// HTTP/1.1.
  public static let http11 = HTTPVersion(major: 1, minor: 1)
  /// `HTTP/1.1`.
  public var description: String { "HTTP/\(major).\(minor)" }
}
