import Encodings
import HTTP

/// Dispatches requests by method and path pattern, each route under a name given where it is
/// registered, through one pipeline of middleware shared by every route.
///
/// Patterns: literal segments match exactly, and `{name}` matches one segment (percent-decoded into
/// `RequestContext.parameters`).
/// The matched route's name is `RequestContext.route` inside the pipeline and the handler; a
/// method the path does not allow is answered 405 under the name of the route the path matched.
///
/// ```swift
/// var router = Router()
/// router.use { request, context, next in
///   var response = try await next(request, context)
///   response.headers.add(name: "X-Route", value: context.route)
///   return response
/// }
/// router.get("/users/{name}", name: "user") { _, context in .text(.ok, context.parameters["name"] ?? "") }
/// let server = HTTPServer(configuration: HTTPServerConfiguration(), handler: router.handler)
/// ```
public struct Router: Sendable {
  private enum Segment: Sendable {
    case literal(Substring)
    case parameter(String)
  }

  private struct Route: Sendable {
    let method: HTTPMethod
    let name: String
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

    func allows(_ method: HTTPMethod) -> Bool {
      self.method == method || (method == .head && self.method == .get)
    }
  }

  private var routes: [Route] = []
  private var fallbackRoute: (name: String, handler: HTTPHandler)?
  private var middleware: [HTTPMiddlewares.Step] = []

  /// An empty router (everything is 404 until routes are added).
  public init() {}

  /// One route as it was added: its method, its pattern (`{name}` marks a parameter) and its name.
  public struct Registration: Sendable, Equatable {
    /// The method it answers (a GET route answers HEAD too).
    public let method: HTTPMethod
    /// The path pattern, as given to `get`, `post` or `delete`.
    public let pattern: String
    /// The name it is counted under.
    public let name: String
  }

  /// The routes added so far, in the order they are matched (read-only: for listings of the routes,
  /// such as `repo-scroll --list-routes`).
  public var registrations: [Registration] {
    routes.map { route in
      let parts = route.segments.map { segment -> String in
        switch segment {
        case .literal(let text): return String(text)
        case .parameter(let name): return "{\(name)}"
        }
      }
      return Registration(method: route.method, pattern: parts.joined(separator: "/"), name: route.name)
    }
  }

  /// Adds a GET route (HEAD is served by it too), named `name` (the pattern when nil).
  public mutating func get(_ pattern: String, name: String? = nil, _ handler: @escaping HTTPHandler) {
    add(.get, pattern, name, handler)
  }

  /// Adds a POST route, named `name` (the pattern when nil).
  public mutating func post(_ pattern: String, name: String? = nil, _ handler: @escaping HTTPHandler) {
    add(.post, pattern, name, handler)
  }

  /// Adds a DELETE route, named `name` (the pattern when nil).
  public mutating func delete(_ pattern: String, name: String? = nil, _ handler: @escaping HTTPHandler) {
    add(.delete, pattern, name, handler)
  }

  /// Called when no route matches the path, under `name`; the default answers 404.
  public mutating func fallback(name: String = "other", _ handler: @escaping HTTPHandler) {
    fallbackRoute = (name, handler)
  }

  /// Adds a step every route goes through (the 405 and 404 answers too). The first added is the
  /// outermost: it sees the request first and the response last.
  public mutating func use(_ step: @escaping HTTPMiddleware) { middleware.append(.init(run: step)) }

  private mutating func add(
    _ method: HTTPMethod, _ pattern: String, _ name: String?, _ handler: @escaping HTTPHandler
  ) {
    let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
    let segments = parts.map { part -> Segment in
      if part.hasPrefix("{") && part.hasSuffix("}") && part.count > 2 {
        return .parameter(String(part.dropFirst().dropLast()))
      }
      return .literal(part)
    }
    routes.append(
      Route(method: method, name: name ?? pattern, segments: segments, handler: handler))
  }

  /// The dispatching handler: matches the path, 405 with `Allow` when the path matches but not the
  /// method; every answer goes through the middleware. The pipeline is composed here, once.
  public var handler: HTTPHandler {
    let middleware = self.middleware
    let piped: @Sendable (@escaping HTTPHandler) -> HTTPHandler = { HTTPMiddlewares.compose(middleware, $0) }
    let routes = self.routes.map { route in
      Route(
        method: route.method, name: route.name, segments: route.segments,
        handler: piped(route.handler))
    }
    let fallbackName = fallbackRoute?.name ?? "other"
    let notFound: HTTPHandler = { _, _ in HTTPResponse.text(.notFound, "not found") }
    let fallback = piped(fallbackRoute?.handler ?? notFound)
    return { request, context in
      let path = request.path
      var slashes = 0
      for byte in path.utf8 where byte == UInt8(ascii: "/") { slashes += 1 }
      var allowed: [String] = []
      var refusedBy: String?
      var context = context
      for route in routes {
        let parameters: [String: String]?
        do {
          parameters = try route.match(path, slashes: slashes)
        } catch {
          // Answered through the pipeline like any route's error (rare: composed here).
          context.route = route.name
          return try await piped { _, _ in throw error }(request, context)
        }
        guard let parameters else { continue }
        if route.allows(request.method) {
          if !parameters.isEmpty { context.parameters.merge(parameters) { $1 } }
          context.route = route.name
          return try await route.handler(request, context)
        }
        if refusedBy == nil { refusedBy = route.name }
        let method = route.method
        if !allowed.contains(method.rawValue) { allowed.append(method.rawValue) }
        if method == .get && !allowed.contains("HEAD") { allowed.append("HEAD") }
      }
      if let refusedBy {
        context.route = refusedBy
        let allow = allowed.joined(separator: ", ")
        return try await piped { _, _ in
          HTTPError(.methodNotAllowed, "method not allowed", headers: ["Allow": allow]).response
        }(request, context)
      }
      context.route = fallbackName
      return try await fallback(request, context)
    }
  }
}
