import GitHub
import HTTP
import HTTPServer
import Mustache
import Paging

/// The full pages of both lists: `GET /` (the landing page, or a search's results) and
/// `GET /owners/{login}`. The head goes out at once; the first batch follows when GitHub answers.
struct PageHandler: Sendable {

  let lists: ListBatches
  let pages: PageRenderer
  let readerLookup: ReaderLookup
  let pageStart: TemplateRef
  let pageEnd: TemplateRef

  /// `GET /?q&sort&order&page`: the landing page without `q`, else the streamed results page.
  func search(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
    let parameters = SearchParameters(request)
    let reader = await readerLookup.reader(request)
    var view = pages.base(
      q: parameters.q, sort: parameters.sort, order: parameters.order, reader: reader, here: request.target)
    if let problem = parameters.problem {
      view.notice = problem
      view.landing = true
      return PageRenderer.personal(try pages.rendered(pages.page, view, status: .badRequest), reader)
    }
    guard let query = parameters.query else {
      view.landing = true
      return PageRenderer.personal(try pages.rendered(pages.page, view, status: .ok), reader)
    }
    view.title = "“\(query.text)” · RepoScroll"
    view.heading = PageView.Heading(
      title: "Results for “\(query.text)”", subtitle: Self.subtitle(query), link: nil)
    view.feedLabel = "Search results for \(query.text)"
    return try await streamedList(
      .search(query), view: view, page: parameters.page, window: parameters.window, request: request,
      reader: reader)
  }

  /// `GET /owners/{login}?page`: one owner's repositories by stars, the second list on the same machinery.
  func owner(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
    guard let login = context.parameters["login"], isValidOwnerName(login) else { return pages.notFound() }
    let reader = await readerLookup.reader(request)
    var view = pages.base(q: "", sort: nil, order: .desc, reader: reader, here: request.target)
    view.title = "Repositories by \(login) · RepoScroll"
    view.heading = PageView.Heading(
      title: "Repositories by \(login)", subtitle: "most starred first",
      link: (href: "https://github.com/\(login)", label: "\(login) on GitHub"))
    view.feedLabel = "Repositories by \(login)"
    let parameters = request.query == nil ? nil : SearchParameters(request)
    return try await streamedList(
      .owner(login), view: view, page: parameters?.page, window: parameters?.window ?? .init(),
      request: request,
      reader: reader)
  }

  /// The full page for one batch. A batch this process's cache holds fresh (`ListBatches.isCached`)
  /// goes out whole, so that it carries a validator (`HTMLDelivery`) and a revisit can be a 304.
  /// Any other batch, and every browser reload (which re-fetches the batch's pages upstream),
  /// streams: head, header and form go out at once, the cards when GitHub has answered.
  ///
  /// A streamed page's work is one task: it reads the batch with the first screen's histories
  /// warmed beside it (a child task) and streams the rest. It is cancelled as one, with its upstream
  /// calls, when the client leaves.
  func streamedList(
    _ kind: ListKind, view: PageView, page text: String?, window: ListCursor.Fields = .init(),
    request: HTTPRequest, reader: Reader
  ) async throws -> HTTPResponse {
    // Past GitHub's first rows the link names a window (strictly parsed); before it, a page number.
    let page = Self.pageNumber(text, windowed: !window.isEmpty, batchSize: lists.batchSize)
    let cursor = try ListCursor.parse(
      position: String((page - 1) * lists.batchSize), fields: window, key: kind.windowKey)
    var view = view
    view.page = page
    if page > 1 { view.previousPage = Self.previous(kind, cursor, page: page, batchSize: lists.batchSize) }
    var head: [UInt8] = []
    head.reserveCapacity(8192)
    try pageStart.render(view.mustacheValue, into: &head)
    let reload = Self.isReload(request)
    // Whole or streamed is decided by the cache's state alone, before any work starts: a batch the
    // cache holds fresh goes out in one whole page, with a validator; any other, and every reload,
    // streams. The same request in the same state always gets the same kind of answer.
    if !reload, lists.isCached(kind, at: cursor, reader: reader.credential) {
      return try await wholeList(
        kind, cursor: cursor, view: view, head: head, request: request, reader: reader)
    }
    let credential = reader.credential
    let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
    continuation.yield(head)
    let base = view
    let work = Task { [self] in
      await withDiscardingTaskGroup { group in
        let fetched = await lists.batch(
          kind, at: cursor, reload: reload, reader: credential, revocation: reader.revocation)
        // The first screen's histories are on their way before the browser asks for them.
        let warmAs = fetched.readAs
        group.addTask { await lists.warming.pageSent(fetched.batch, as: warmAs) }
        // The head is out: a session ended now is cleared from the cookie on the next request.
        var view = base
        var late = reader
        view.batch = await firstBatch(fetched, kind, &late)
        var tail: [UInt8] = []
        tail.reserveCapacity(4096 + fetched.batch.items.count * 2048)
        do {
          try pageEnd.render(view.mustacheValue, into: &tail)
          continuation.yield(tail)
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
    }
    // A client that leaves before the end cancels the work, its upstream call and its warming.
    continuation.onTermination = { termination in
      if case .cancelled = termination { work.cancel() }
    }
    return PageRenderer.personal(SecurityHeaders.htmlResponse(.ok, .stream(stream)), reader)
  }

  /// The page of a batch the cache holds, whole: read in the request's own task (cancelled with it),
  /// then the first screen's histories warmed after the answer, as on a streamed page.
  private func wholeList(
    _ kind: ListKind, cursor: ListCursor, view: PageView, head: [UInt8], request: HTTPRequest, reader: Reader
  ) async throws -> HTTPResponse {
    let fetched = await lists.batch(
      kind, at: cursor, reload: false, reader: reader.credential, revocation: reader.revocation)
    let warmAs = fetched.readAs
    let warming = lists.warming
    Task { await warming.pageSent(fetched.batch, as: warmAs) }
    var view = view
    var reader = reader
    view.batch = await firstBatch(fetched, kind, &reader)
    var body = head
    if fetched.revoked {
      // Not sent yet: the header shows the reader signed out (the batch says why).
      view.account = AccountView.value(reader, here: request.target)
      body.removeAll(keepingCapacity: true)
      try pageStart.render(view.mustacheValue, into: &body)
    }
    body.reserveCapacity(head.count + 4096 + fetched.batch.items.count * 2048)
    try pageEnd.render(view.mustacheValue, into: &body)
    return PageRenderer.personal(SecurityHeaders.htmlResponse(.ok, .bytes(body)), reader)
  }

  /// The page's first batch, whole now or streamed when GitHub answers (its times as of then). A
  /// token GitHub refused ends the session (the batch came anonymously) and says so.
  private func firstBatch(_ fetched: ListBatches.Fetched, _ kind: ListKind, _ reader: inout Reader) async
    -> MustacheValue
  {
    if fetched.revoked { await readerLookup.tokenRevoked(&reader) }
    var batchView = lists.view(fetched, kind: kind, firstOnPage: true, resultCount: fetched.total)
    batchView.limit = BatchView.LimitOwner(reader)
    batchView.notice = fetched.revoked ? reader.notice?.text : nil
    return batchView.mustacheValue
  }

  /// The `page` parameter: 1 when absent or malformed; without a window at most the page at GitHub's
  /// cap (further on, links name a window), with one as far as a cursor may go.
  static func pageNumber(_ text: String?, windowed: Bool = false, batchSize: Int = 20) -> Int {
    guard let text, let page = Int(text), page >= 1 else { return 1 }
    let batch = max(1, batchSize)
    return min(page, windowed ? ListCursor.maxPosition / batch : GitHubSearchSource.resultCap / batch + 1)
  }

  /// The no-JS link to the batch before page `page`: the page before, or inside a window the rows
  /// before; nil where it cannot be known (a window's first rows: windows are found going forward).
  static func previous(_ kind: ListKind, _ cursor: ListCursor, page: Int, batchSize: Int) -> String? {
    switch cursor {
    case .offset: return kind.pageURL(page: page - 1)
    case .window(var window):
      guard window.skip >= batchSize else { return nil }
      window.skip -= batchSize
      window.position = max(0, window.position - batchSize)
      return kind.pageURL(page: page - 1, cursor: .window(window))
    }
  }

  /// Whether the browser asked to bypass caches (a reload sends `max-age=0` or `no-cache`).
  static func isReload(_ request: HTTPRequest) -> Bool {
    if let control = request.headers["Cache-Control"]?.lowercased(),
      control.contains("max-age=0") || control.contains("no-cache")
    {
      return true
    }
    return request.headers["Pragma"]?.lowercased().contains("no-cache") ?? false
  }

  /// "sorted by stars, descending" or "best match".
  static func subtitle(_ query: SearchQuery) -> String {
    guard let sort = query.sort else { return "best match" }
    let field = PageView.label(sort).lowercased()
    return "sorted by \(field), \(query.order == .desc ? "descending" : "ascending")"
  }
}
