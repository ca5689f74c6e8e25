import Clocks
import HTTP
import HTTPServer

/// `/static/…`: the files of the public folder, and the page's ES modules under their fingerprinted
/// folder. This is the one route that does not go through the router and `Pipeline`: measured in
/// release builds, the composed steps cost the static path about 30% more CPU per request, so it does
/// the two steps a static answer needs itself. Its answers are built ahead with the security headers,
/// validators and gzip in (`StaticFiles`); only the rare 404 and 405 get the headers here.
struct StaticHandler: Sendable {
  /// The path prefix this handler serves.
  static let prefix = "/static/"
  /// Its metrics label.
  static let name = "static"

  let files: StaticFiles
  /// The page's ES modules under their fingerprinted folder.
  let modules: ModuleSet
  let metrics: Metrics
  /// The clock request durations are measured on (the pipeline's).
  let time: TimeSource

  /// Whether `request` is this handler's (compared as bytes: every request is checked).
  func serves(_ request: HTTPRequest) -> Bool { request.path.utf8.starts(with: Self.prefix.utf8) }

  /// Any method (`StaticFiles` answers 405 itself for those it does not serve).
  func file(_ request: HTTPRequest) async -> HTTPResponse {
    let started = time.monotonic()
    metrics.started()
    var response: HTTPResponse
    if let module = modules.resolve(request.path) {
      var forwarded = request
      forwarded.target = module
      response = await files.response(for: forwarded, urlPrefix: "/static")
    } else {
      response = await files.response(for: request, urlPrefix: "/static")
    }
    if response.serializedHeaders == nil { SecurityHeaders.apply(to: &response.headers) }
    metrics.finished(
      route: Self.name, status: response.status.code, seconds: (time.monotonic() - started).secondsValue)
    return response
  }
}
