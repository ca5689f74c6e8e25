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
  /// One step as a router keeps it. A function kept in a struct keeps its own calling convention; one
  /// kept straight in an array (or passed through a generic such as `reduce`) is wrapped in a
  /// reabstraction thunk, an async frame more per request for every step and handler.
  struct Step: Sendable {
    let run: HTTPMiddleware
  }

  /// `handler` inside `steps`, the first step outermost; built once, not per request.
  static func compose(_ steps: [Step], _ handler: @escaping HTTPHandler) -> HTTPHandler {
    var composed = handler
    for step in steps.reversed() { composed = compose(step.run, composed) }
    return composed
  }

  /// `handler` inside `step`.
  static func compose(_ step: @escaping HTTPMiddleware, _ handler: @escaping HTTPHandler) -> HTTPHandler {
    { request, context in try await step(request, context, handler) }
  }
}
