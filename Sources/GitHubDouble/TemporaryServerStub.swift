// TEMPORARY: stands in for the HTTPServer contract types until branch `foundation` is merged.
import HTTP

/// Per-request information the server passes to handlers (contract stand-in).
public struct RequestContext: Sendable {
  /// Short unique id.
  public let requestID: String
  /// Path parameters.
  public var parameters: [String: String]
  /// The peer address.
  public let remoteAddress: String

  /// A context from its parts.
  public init(requestID: String, parameters: [String: String] = [:], remoteAddress: String) {
    self.requestID = requestID
    self.parameters = parameters
    self.remoteAddress = remoteAddress
  }
}

/// The handler shape of the HTTPServer contract (stand-in).
public typealias HTTPHandler = @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse
