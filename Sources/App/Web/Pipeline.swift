import Clocks
import HTTP
import HTTPServer

/// The steps every routed answer goes through (`Router.use`; static files take their own lean path,
/// see `StaticHandler`), outermost first:
/// 1. metering: in-flight count, and requests and durations by route name (a streamed body counts
///    when its last chunk went out or the client left);
/// 2. delivery: validators (`Validators`), and for HTML the ETag, 304, and gzip (`HTMLDelivery`);
/// 3. security headers: the headers every answer carries (`SecurityHeaders`);
/// 4. error answers: a thrown `HTTPError` answers with itself, anything else with a 500 that the
///    access log notes.
/// The server writes the access-log line for each request once its last byte is queued.
///
/// Only metering needs to run around the handler; the other steps are plain functions of the
/// answer, so the pipeline is one middleware that calls them in order: each async layer costs a
/// task frame per request on the fragment route.
enum Pipeline {
  /// The middleware around every route.
  static func middleware(metrics: Metrics, accessLog: AccessLog?, time: TimeSource) -> HTTPMiddleware {
    { request, context, next in
      let started = time.monotonic()
      metrics.started()
      var response = await answer(request, context, next, accessLog)
      secure(&response)
      deliver(&response, for: request)
      metered(&response, route: context.route, metrics: metrics, time: time, started: started)
      return response
    }
  }

  /// Step 1, once the answer is ready: counts it under its route's name, with its duration until
  /// the last byte (for a stream, when it ends).
  static func metered(
    _ response: inout HTTPResponse, route: String, metrics: Metrics, time: TimeSource, started: Duration
  ) {
    let status = response.status.code
    // A whole body is counted here and now, with no closure made for it (its context would be
    // allocated per request: the stream's case lets it escape).
    guard case .stream(let inner) = response.body else {
      metrics.finished(route: route, status: status, seconds: (time.monotonic() - started).secondsValue)
      return
    }
    response.body = .stream(
      BodyPipe.through(inner) {
        metrics.finished(route: route, status: status, seconds: (time.monotonic() - started).secondsValue)
      })
  }

  /// Step 2: validators for every answer; for HTML, its ETag, the 304 and gzip.
  static func deliver(_ response: inout HTTPResponse, for request: HTTPRequest) {
    if let type = response.headers["Content-Type"], type.hasPrefix("text/html") {
      HTMLDelivery.apply(to: &response, for: request)
    } else {
      Validators.apply(to: &response, for: request)
    }
  }

  /// Step 3: the security headers, on every answer that was not built with them.
  static func secure(_ response: inout HTTPResponse) {
    // Prebuilt answers (HTML, static files) carry them already and stay serialised.
    if response.serializedHeaders == nil { SecurityHeaders.apply(to: &response.headers) }
  }

  /// Step 4: the handler's answer, or its error as an answer: an `HTTPError` as itself, anything
  /// else as a 500 noted in the access log.
  static func answer(
    _ request: HTTPRequest, _ context: RequestContext, _ handler: HTTPHandler, _ log: AccessLog?
  ) async -> HTTPResponse {
    do {
      return try await handler(request, context)
    } catch let error as HTTPError {
      return error.response
    } catch {
      log?.event("handler error: \(error)", requestID: context.requestID)
      return HTTPResponse.text(.internalServerError, "internal server error")
    }
  }
}
