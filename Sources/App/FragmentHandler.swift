import GitHub
import HTTP
import HTTPServer
import Mustache
import Paging

/// The next batch of either list as an HTML fragment: `GET /fragments/results` and
/// `GET /fragments/owners/{login}`. A navigation to one is sent to the matching full page.
struct FragmentHandler: Sendable {
  let lists: ListBatches
  let readers: Readers
  let cards: TemplateRef

  /// `GET /fragments/results?q&sort&order&after`.
  func search(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
    let parameters = SearchParameters(request)
    if let problem = parameters.problem { throw HTTPError(.unprocessableContent, problem) }
    guard let query = parameters.query else { throw HTTPError(.badRequest, "q is required") }
    return try await fragment(.search(query), after: parameters.after, request: request)
  }

  /// `GET /fragments/owners/{login}?after`: the owner list's next batch.
  func owner(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
    guard let login = context.parameters["login"], isValidOwnerName(login) else {
      throw HTTPError(.notFound, "no such owner")
    }
    let after = request.query == nil ? nil : SearchParameters(request).after
    return try await fragment(.owner(login), after: after, request: request)
  }

  /// The fragment answer shared by both lists.
  func fragment(_ kind: ListKind, after text: String?, request: HTTPRequest) async throws -> HTTPResponse {
    let after: Int
    if let text {
      guard let value = Int(text), (0...GitHubSearchSource.resultCap).contains(value) else {
        throw HTTPError(.badRequest, "after must be a whole number from 0 to \(GitHubSearchSource.resultCap)")
      }
      after = value
    } else {
      after = 0
    }
    if request.headers["Sec-Fetch-Mode"] == "navigate" {
      let location = kind.pageURL(page: after / lists.batchSize + 1)
      return HTTPResponse(status: .seeOther, headers: ["Location": location, "Cache-Control": "no-cache"])
    }
    var reader = await readers.reader(request)
    let fetched = await lists.batch(
      kind, after: after, reload: false, reader: reader.credential, revocation: reader.revocation)
    // A refused token ends the session; the batch already came anonymously, so no row is lost.
    if fetched.revoked { await readers.tokenRevoked(&reader) }
    var view = lists.view(fetched, kind: kind, firstOnPage: after == 0)
    if reader.signInEnabled {
      view.limit = BatchView.LimitOwner(reader)
      view.notice = reader.notice?.text
    }
    var body: [UInt8] = []
    body.reserveCapacity(2048 + fetched.batch.items.count * 2048)
    try cards.render(view.mustacheValue, into: &body)
    return PageRenderer.personal(SecurityHeaders.htmlResponse(.ok, .bytes(body)), reader)
  }
}
