import HTTP

/// A step around a handler: it may change the request, answer on its own, or change the response
/// that `next` returns. `Router.use` puts one around every route.
///
/// ```swift
/// let timed: HTTPMiddleware = { request, context, next in
///   let started = time.monotonic()  // `time`: the TimeSource the server was given
///   let response = try await next(request, context)
///   print(context.route, time.monotonic() - started)
///   return response
/// }
/// ```
public typealias HTTPMiddleware =
  @Sendable (HTTPRequest, RequestContext, _ next: HTTPHandler) async throws -> HTTPResponse

/// Composition of middleware.
enum HTTPMiddlewares {
  /// `handler` inside `steps`, the first step outermost; built once, not per request.
  static func compose(_ steps: [HTTPMiddleware], _ handler: @escaping HTTPHandler) -> HTTPHandler {
    steps.reversed().reduce(handler) { next, step in
      { request, context in try await step(request, context, next) }
    }
  }
}
