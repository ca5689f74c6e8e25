import HTTP
import HTTPServer

/// `/static/…`: the files of the public folder, and the page's ES modules under their fingerprinted
/// folder. The answers are built ahead with the security headers in, so this path stays lean.
struct StaticHandler: Sendable {
  let files: StaticFiles
  /// The page's ES modules under their fingerprinted folder.
  let modules: ModuleSet

  /// Any method (`StaticFiles` answers 405 itself for those it does not serve).
  func file(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
    guard let module = modules.resolve(request.path) else {
      return await files.response(for: request, urlPrefix: "/static")
    }
    var forwarded = request
    forwarded.target = module
    return await files.response(for: forwarded, urlPrefix: "/static")
  }
}
