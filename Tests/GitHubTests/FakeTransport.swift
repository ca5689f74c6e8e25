import CurlClient
import HTTP
import Synchronization

/// A scriptable transport that records every request it receives.
/// (Lives here rather than in TestSupport because TestSupport does not depend on CurlClient.)
final class FakeTransport: HTTPClientTransport {
  typealias Handler = @Sendable (ClientRequest) async throws -> ClientResponse

  private let recorded = Mutex<[ClientRequest]>([])
  private let handler: Mutex<Handler>

  init(_ handler: @escaping Handler) { self.handler = Mutex(handler) }

  /// Replaces the script for later requests.
  func respond(_ handler: @escaping Handler) { self.handler.withLock { $0 = handler } }

  func execute(_ request: ClientRequest) async throws(ClientError) -> ClientResponse {
    recorded.withLock { $0.append(request) }
    let current = handler.withLock { $0 }
    do {
      return try await current(request)
    } catch {
      throw ClientError.typed(error)
    }
  }

  var requests: [ClientRequest] { recorded.withLock { $0 } }
  var callCount: Int { recorded.withLock { $0.count } }
}

extension ClientError {
  /// A script's error as the transport's typed error; a cancelled sleep is a cancelled request.
  static func typed(_ error: any Error) -> ClientError {
    if let error = error as? ClientError { return error }
    if error is CancellationError { return .cancelled }
    return .other(String(describing: error))
  }
}

/// Holds transport calls until the test opens it.
actor Gate {
  private var isOpen = false
  private var waiters: [CheckedContinuation<Void, Never>] = []

  func wait() async {
    if isOpen { return }
    await withCheckedContinuation { waiters.append($0) }
  }

  func open() {
    isOpen = true
    for waiter in waiters { waiter.resume() }
    waiters.removeAll()
  }
}

enum Fixtures {
  static func response(
    _ body: String, status: Int = 200, headers: [(String, String)] = [("Content-Type", "application/json")]
  ) -> ClientResponse {
    ClientResponse(status: HTTPStatus(code: status), headers: HTTPHeaders(headers), body: Array(body.utf8))
  }

  /// `visibility` is the JSON of the two fields that say who may see it (a public repository's by
  /// default; "" leaves both out).
  static func repositoryJSON(
    id: Int, name: String = "repo", description: String = "\"d\"",
    visibility: String = "\"private\":false,\"visibility\":\"public\","
  ) -> String {
    """
    {"id":\(id),"name":"\(name)\(id)","full_name":"owner/\(name)\(id)",\(visibility)"html_url":"https://github.com/owner/\(name)\(id)",
    "owner":{"login":"owner","id":7,"avatar_url":"https://avatars.githubusercontent.com/u/7?v=4",
    "html_url":"https://github.com/owner","type":"User"},"description":\(description),"fork":false,
    "language":"Swift","stargazers_count":\(id * 10),"forks_count":1,"open_issues_count":2,
    "created_at":"2020-01-01T00:00:00Z","updated_at":"2021-01-01T00:00:00Z","pushed_at":null,
    "homepage":null,"license":null,"topics":["a"],"archived":false,"extra_unknown_field":{"x":1}}
    """
  }

  /// The visibility fields of a private repository.
  static let privateFields = "\"private\":true,\"visibility\":\"private\","

  /// A search answer with the repositories `ids`; those in `privateIDs` are private.
  static func searchJSON(ids: [Int], total: Int = 5000, privateIDs: Set<Int> = []) -> String {
    "{\"total_count\":\(total),\"incomplete_results\":false,\"items\":["
      + ids.map {
        privateIDs.contains($0) ? repositoryJSON(id: $0, visibility: privateFields) : repositoryJSON(id: $0)
      }.joined(separator: ",") + "]}"
  }

  static func search(ids: [Int], privateIDs: Set<Int> = [], headers: [(String, String)] = [])
    -> ClientResponse
  {
    response(
      searchJSON(ids: ids, privateIDs: privateIDs), headers: [("Content-Type", "application/json")] + headers)
  }

  static let historyJSON = """
    [{"week":1754784000,"total":19,"days":[0,12,7,0,0,0,0]},{"week":1754179200,"total":3,"days":[1,1,1,0,0,0,0]}]
    """
}
