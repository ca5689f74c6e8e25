import HTTP

/// Dispatches requests by method and path pattern (`/avatars/{id}`; literal segments match exactly).
///
/// ```swift
/// var router = Router()
/// router.get("/users/{name}") { _, context in .text(.ok, context.parameters["name"] ?? "") }
/// let server = HTTPServer(configuration: HTTPServerConfiguration(), handler: router.handler)
/// ```
public struct Router: Sendable {
  private enum Segment: Sendable {
    case literal(Substring)
    case parameter(String)
  }

  private struct Route: Sendable {
    let method: HTTPMethod
    let segments: [Segment]
    let handler: HTTPHandler

    /// The decoded parameters if `path` matches; throws 400 for a bad escape in a parameter. The path
    /// is walked segment by segment in place (no array of its segments is built per request).
    func match(_ path: Substring, slashes: Int) throws(HTTPError) -> [String: String]? {
      // Counted first, so that a parameter is decoded only in a path of the pattern's length.
      guard slashes == segments.count - 1 else { return nil }
      var parameters: [String: String] = [:]
      let utf8 = path.utf8
      var start = utf8.startIndex
      for (number, segment) in segments.enumerated() {
        // `/` is ASCII, so every index found here falls on a character boundary.
        let end = utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? utf8.endIndex
        // Cannot happen once the slashes are counted; kept so that no index runs past the path.
        if (end == utf8.endIndex) != (number == segments.count - 1) { return nil }
        let part = Substring(utf8[start..<end])
        switch segment {
        case .literal(let text): if text != part { return nil }
        case .parameter(let name):
          guard !part.isEmpty else { return nil }
          guard let value = URLEncoding.percentDecode(part) else {
            throw HTTPError(.badRequest, "bad percent-encoding in path")
          }
          parameters[name] = value
        }
        if end < utf8.endIndex { start = utf8.index(after: end) }
      }
      return parameters
    }
  }

  private var routes: [Route] = []
  private var fallbackHandler: HTTPHandler?

  /// An empty router (everything is 404 until routes are added).
  public init() {}

  /// Adds a GET route (HEAD is served by it too).
  public mutating func get(_ pattern: String, _ handler: @escaping HTTPHandler) {
    add(.get, pattern, handler)
  }

  /// Adds a POST route.
  public mutating func post(_ pattern: String, _ handler: @escaping HTTPHandler) {
    add(.post, pattern, handler)
  }

  /// Adds a DELETE route.
  public mutating func delete(_ pattern: String, _ handler: @escaping HTTPHandler) {
    add(.delete, pattern, handler)
  }

  /// Called when no route matches the path (e.g. static files); the default answers 404.
  public mutating func fallback(_ handler: @escaping HTTPHandler) { fallbackHandler = handler }

  private mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: @escaping HTTPHandler) {
    let segments = pattern.split(separator: "/", omittingEmptySubsequences: false).map { part -> Segment in
      if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
        return .parameter(String(part.dropFirst().dropLast()))
      }
      return .literal(part)
    }
    routes.append(Route(method: method, segments: segments, handler: handler))
  }

  /// The dispatching handler: matches the path, 405 with `Allow` when the path matches but not the method.
  public var handler: HTTPHandler {
    let routes = self.routes
    let fallback = self.fallbackHandler
    return { request, context in
      let path = request.path
      var slashes = 0
      for byte in path.utf8 where byte == UInt8(ascii: "/") { slashes += 1 }
      var allowed: [String] = []
      for route in routes {
        guard let parameters = try route.match(path, slashes: slashes) else { continue }
        if route.method == request.method || (request.method == .head && route.method == .get) {
          var context = context
          if !parameters.isEmpty { context.parameters.merge(parameters) { $1 } }
          return try await route.handler(request, context)
        }
        if !allowed.contains(route.method.rawValue) { allowed.append(route.method.rawValue) }
        if route.method == .get && !allowed.contains("HEAD") { allowed.append("HEAD") }
      }
      if !allowed.isEmpty {
        return HTTPError(
          .methodNotAllowed, "method not allowed", headers: ["Allow": allowed.joined(separator: ", ")]
        ).response
      }
      if let fallback { return try await fallback(request, context) }
      return HTTPResponse.text(.notFound, "not found")
    }
  }
}
