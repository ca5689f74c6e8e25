import Clocks
import HTTP
import HTTPServer

/// The steps every routed answer goes through (`Router.use`; static files take their own lean path,
/// see `StaticHandler`), outermost first:
/// 1. `metered`: in-flight count, and requests and durations by route name (a streamed body counts
///    when its last chunk went out or the client left);
/// 2. `delivery`: validators (`Validators`), and for HTML the ETag, 304, and gzip (`HTMLDelivery`);
/// 3. `securityHeaders`: the headers every answer carries (`SecurityHeaders`);
/// 4. `errorAnswers`: a thrown `HTTPError` answers with itself, anything else with a 500 that the
///    access log notes.
/// The server writes the access-log line for each request once its last byte is queued.
enum Pipeline {
  /// The steps, outermost first.
  static func steps(metrics: Metrics, accessLog: AccessLog?, time: TimeSource)
    -> [HTTPMiddleware]
  {
    [metered(metrics, time: time), delivery, securityHeaders, errorAnswers(accessLog)]
  }

  /// Counts every request under its route's name, with its duration until the last byte.
  static func metered(_ metrics: Metrics, time: TimeSource) -> HTTPMiddleware {
    { request, context, next in
      let started = time.monotonic()
      metrics.started()
      var response = try await next(request, context)
      let name = context.route
      let status = response.status.code
      let finish: @Sendable () -> Void = {
        metrics.finished(route: name, status: status, seconds: (time.monotonic() - started).secondsValue)
      }
      switch response.body {
      case .bytes:
        finish()
      case .stream(let inner):
        response.body = .stream(BodyPipe.through(inner, finished: finish))
      }
      return response
    }
  }

  /// Validators for every answer; for HTML, its ETag, the 304 and gzip.
  static let delivery: HTTPMiddleware = { request, context, next in
    var response = try await next(request, context)
    if let type = response.headers["Content-Type"], type.hasPrefix("text/html") {
      HTMLDelivery.apply(to: &response, for: request)
    } else {
      Validators.apply(to: &response, for: request)
    }
    return response
  }

  /// The security headers, on every answer that was not built with them.
  static let securityHeaders: HTTPMiddleware = { request, context, next in
    var response = try await next(request, context)
    // Prebuilt answers (HTML, static files) carry them already and stay serialised.
    if response.serializedHeaders == nil { SecurityHeaders.apply(to: &response.headers) }
    return response
  }

  /// Errors as answers: an `HTTPError` as itself, anything else as a 500 noted in the access log.
  static func errorAnswers(_ log: AccessLog?) -> HTTPMiddleware {
    { request, context, next in
      do {
        return try await next(request, context)
      } catch let error as HTTPError {
        return error.response
      } catch {
        log?.note("handler error: \(error)", requestID: context.requestID)
        return HTTPResponse.text(.internalServerError, "internal server error")
      }
    }
  }
}
