import GitHub
import HTTP
import HTTPServer
import Mustache
import Paging

/// The next batch of either list as an HTML fragment: `GET /fragments/results` and
/// `GET /fragments/owners/{login}`. A navigation to one is sent to the matching full page.
struct FragmentHandler: Sendable {
  let lists: ListBatches
  let readerLookup: ReaderLookup
  let cards: TemplateRef

  /// `GET /fragments/results?q&sort&order&after`.
  func search(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
    let parameters = SearchParameters(request)
    if let problem = parameters.problem { throw HTTPError(.unprocessableContent, problem) }
    guard let query = parameters.query else { throw HTTPError(.badRequest, "q is required") }
    return try await fragment(.search(query), parameters, request: request)
  }

  /// `GET /fragments/owners/{login}?after`: the owner list's next batch.
  func owner(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
    guard let login = context.parameters["login"], isValidOwnerName(login) else {
      throw HTTPError(.notFound, "no such owner")
    }
    let parameters = request.query == nil ? nil : SearchParameters(request)
    return try await fragment(.owner(login), parameters, request: request)
  }

  /// The fragment answer shared by both lists.
  func fragment(_ kind: ListKind, _ parameters: SearchParameters?, request: HTTPRequest) async throws
    -> HTTPResponse
  {
    let cursor = try ListCursor.parse(
      position: parameters?.after, fields: parameters?.window ?? .init(), key: kind.windowKey)
    if request.headers["Sec-Fetch-Mode"] == "navigate" {
      let location = kind.pageURL(page: cursor.position / lists.batchSize + 1, cursor: cursor)
      return HTTPResponse(status: .seeOther, headers: ["Location": location, "Cache-Control": "no-cache"])
    }
    var reader = await readerLookup.reader(request)
    let fetched = await lists.batch(
      kind, at: cursor, reload: false, reader: reader.credential, revocation: reader.revocation)
    // A refused token ends the session; the batch already came anonymously, so no row is lost.
    if fetched.revoked { await readerLookup.tokenRevoked(&reader) }
    var view = lists.view(fetched, kind: kind, firstOnPage: cursor.position == 0)
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
