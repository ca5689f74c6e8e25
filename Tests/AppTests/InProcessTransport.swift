import CurlClient
import Foundation
import HTTP
import HTTPServer

/// An upstream reached by calling its handler directly: no socket, no libcurl, no threads.
///
/// ```swift
/// let double = AppHarness.smallDouble()
/// let app = try RepoScrollApp(
///   configuration: c, transport: InProcessTransport(handler: double.handler), time: .system)
/// ```
struct InProcessTransport: HTTPClientTransport {
  let handler: HTTPHandler

  func execute(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
    if Task.isCancelled { throw ClientError.cancelled }
    guard let (host, target) = Self.split(request.url) else { throw ClientError.invalidURL(request.url) }
    var headers = request.headers
    if headers["Host"] == nil { headers.add(name: "Host", value: host) }
    let response: ClientResponse
    do {
      response = try await Self.call(
        handler, HTTPRequest(method: request.method, target: target, headers: headers, body: request.body))
    } catch {
      throw ScriptedTransport.typed(error)
    }
    if let limit = request.maxResponseBytes, response.body.count > limit {
      throw ClientError.tooLarge(limit: limit)
    }
    if Task.isCancelled { throw ClientError.cancelled }
    return response
  }

  /// The authority and origin-form target of an absolute http(s) URL.
  static func split(_ url: String) -> (host: String, target: String)? {
    guard let scheme = url.range(of: "://") else { return nil }
    let rest = url[scheme.upperBound...]
    let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
    let host = String(rest[..<slash])
    let target = rest[slash...].hasPrefix("?") ? "/" + rest[slash...] : String(rest[slash...])
    return host.isEmpty ? nil : (host, target.isEmpty ? "/" : target)
  }

  /// Calls `handler` as the server would: a thrown `HTTPError` becomes its response, any other
  /// error a 500, and a HEAD answer loses its body.
  static func call(_ handler: HTTPHandler, _ request: HTTPRequest, id: String = "in-process") async throws
    -> ClientResponse
  {
    var response: HTTPResponse
    do {
      response = try await handler(request, RequestContext(requestID: id))
    } catch let error as HTTPError {
      response = error.response
    }
    var body: [UInt8] = []
    switch response.body {
    case .bytes(let bytes): body = bytes
    case .stream(let stream): for try await chunk in stream { body += chunk }
    }
    if request.method == .head { body = [] }
    return ClientResponse(status: response.status, headers: response.headers, body: body)
  }
}
