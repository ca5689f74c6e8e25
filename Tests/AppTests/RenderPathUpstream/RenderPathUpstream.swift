import CurlClient
import HTTP

/// The scripted GitHub of the render-path checks: the property test here and `Fuzz/RenderPath`,
/// whose `sources` compile this folder into the fuzz target, so both script the same GitHub.
enum RenderPathUpstream {
  /// `search` for a search's first page and an empty page after it (so a list ends after the
  /// scripted page), `history` for any star history.
  static func answer(_ request: ClientRequest, search: [UInt8], history: [UInt8]) -> ClientResponse {
    let body: [UInt8]
    if request.url.contains("/stargazers/history") {
      body = history
    } else {
      body = request.url.hasSuffix("&page=1") ? search : Array(#"{"total_count":0,"items":[]}"#.utf8)
    }
    return ClientResponse(status: .ok, headers: ["Content-Type": "application/json"], body: body)
  }
}
