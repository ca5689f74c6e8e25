import GitHub
import HTTP
import HTTPServer
import Mustache
import Paging

extension Routes {
  /// Highest page number accepted on the no-JS path (beyond it, cursors would pass any cap).
  static let maxPage = 1000

  // MARK: Search

  /// `GET /?q&sort&order&page`: the landing page without `q`, else the streamed results page.
  func searchPage(_ request: HTTPRequest) async throws -> HTTPResponse {
    let parameters = SearchParameters(request)
    let reader = await self.reader(request)
    var view = basePage(
      q: parameters.q, sort: parameters.sort, order: parameters.order, reader: reader, here: request.target)
    if let problem = parameters.problem {
      view.notice = problem
      view.landing = true
      return Self.personal(try rendered("page", view, status: .badRequest), reader)
    }
    guard let query = parameters.query else {
      view.landing = true
      return Self.personal(try rendered("page", view, status: .ok), reader)
    }
    view.title = "“\(query.text)” · RepoScroll"
    view.heading = PageView.Heading(
      title: "Results for “\(query.text)”", subtitle: Self.subtitle(query), link: nil)
    view.feedLabel = "Search results for \(query.text)"
    return try await streamedList(
      .search(query), view: view, page: parameters.page, request: request, reader: reader)
  }

  /// `GET /fragments/results?q&sort&order&after`: the next batch as a fragment; a navigation to it
  /// is sent to the matching full page.
  func searchFragment(_ request: HTTPRequest) async throws -> HTTPResponse {
    let parameters = SearchParameters(request)
    if let problem = parameters.problem { throw HTTPError(.unprocessableContent, problem) }
    guard let query = parameters.query else { throw HTTPError(.badRequest, "q is required") }
    return try await fragment(.search(query), after: parameters.after, request: request)
  }

  // MARK: Owner

  /// `GET /owners/{login}?page`: one owner's repositories by stars, the second list on the same machinery.
  func ownerPage(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
    guard let login = context.parameters["login"], isValidOwnerName(login) else { return notFoundPage() }
    let reader = await self.reader(request)
    var view = basePage(q: "", sort: nil, order: .desc, reader: reader, here: request.target)
    view.title = "Repositories by \(login) · RepoScroll"
    view.heading = PageView.Heading(
      title: "Repositories by \(login)", subtitle: "most starred first",
      link: (href: "https://github.com/\(login)", label: "\(login) on GitHub"))
    view.feedLabel = "Repositories by \(login)"
    let page = request.query == nil ? nil : SearchParameters(request).page
    return try await streamedList(.owner(login), view: view, page: page, request: request, reader: reader)
  }

  /// `GET /fragments/owners/{login}?after`: the owner list's next batch.
  func ownerFragment(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
    guard let login = context.parameters["login"], isValidOwnerName(login) else {
      throw HTTPError(.notFound, "no such owner")
    }
    let after = request.query == nil ? nil : SearchParameters(request).after
    return try await fragment(.owner(login), after: after, request: request)
  }

  // MARK: Shared

  /// A page view with the form filled in and no list yet; with sign-in on, the header's account
  /// area for `reader` on the page at `here` and the reader's notice.
  func basePage(
    q: String, sort: SearchSort?, order: SortOrder, reader: Reader = .anonymous, here: String = "/"
  )
    -> PageView
  {
    var view = PageView(
      title: "RepoScroll", assets: assets, q: q, sort: sort, order: order, landing: false,
      hasToken: configuration.githubToken != nil)
    view.account = AccountView.value(reader, here: here)
    view.readerNotice = reader.notice?.text
    return view
  }

  /// The full page for one batch: head, header and form go out at once; the cards follow when
  /// GitHub has answered. A browser reload re-fetches the batch's pages upstream. A batch the cache
  /// already holds arrives within `readyWithin`: then the page goes out whole, so that it carries a
  /// validator (`HTMLDelivery`) and a revisit can be a 304.
  func streamedList(
    _ kind: ListKind, view: PageView, page text: String?, request: HTTPRequest, reader: Reader = .anonymous
  ) async throws -> HTTPResponse {
    let page = Self.pageNumber(text)
    let cursor = (page - 1) * configuration.batchSize
    var view = view
    view.page = page
    if page > 1 { view.previousPage = kind.pageURL(page: page - 1) }
    var head: [UInt8] = []
    head.reserveCapacity(8192)
    try templates.render("partials/page-start", view.mustacheValue, into: &head)
    let reload = Self.isReload(request)
    let credential = reader.credential
    let fetch = Task { [self] in
      let fetched = await self.batch(kind, after: cursor, reload: reload, reader: credential)
      // The first screen's histories are on their way before the browser asks for them.
      let warmAs = fetched.revoked ? nil : credential
      Task { await self.warming.pageSent(fetched.batch, as: warmAs) }
      return fetched
    }
    // The page's first batch, whole now or streamed when GitHub answers (its times as of then). A
    // token GitHub refused ends the session (the batch came anonymously) and says so.
    let firstBatch: @Sendable (FetchedBatch, inout Reader) async -> MustacheValue = {
      [self] fetched, reader in
      if fetched.revoked { await signIn?.tokenRevoked(&reader) }
      var batchView = BatchView(
        batch: fetched.batch, kind: kind, batchSize: configuration.batchSize,
        prefetchMargin: configuration.prefetchMargin,
        largestStars: fetched.largest, now: now, resultCount: fetched.total, firstOnPage: true)
      batchView.limit = limitOwner(reader)
      batchView.notice = fetched.revoked ? reader.notice?.text : nil
      return batchView.mustacheValue
    }
    if !reload, let fetched = await Self.value(of: fetch, within: Self.readyWithin) {
      var reader = reader
      view.batch = await firstBatch(fetched, &reader)
      var body = head
      if fetched.revoked {
        // Not sent yet: the header shows the reader signed out (the batch says why).
        view.account = AccountView.value(reader, here: request.target)
        body.removeAll(keepingCapacity: true)
        try templates.render("partials/page-start", view.mustacheValue, into: &body)
      }
      body.reserveCapacity(head.count + 4096 + fetched.batch.items.count * 2048)
      try templates.render("partials/page-end", view.mustacheValue, into: &body)
      return Self.personal(SecurityHeaders.htmlResponse(.ok, .bytes(body)), reader)
    }
    let (stream, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
    continuation.yield(head)
    let base = view
    let task = Task { [self] in
      var view = base
      // The head is out: a session ended now is cleared from the cookie on the next request.
      var late = reader
      let fetched = await fetch.value
      view.batch = await firstBatch(fetched, &late)
      var tail: [UInt8] = []
      tail.reserveCapacity(4096 + fetched.batch.items.count * 2048)
      do {
        try templates.render("partials/page-end", view.mustacheValue, into: &tail)
        continuation.yield(tail)
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in
      task.cancel()
      fetch.cancel()
    }
    return Self.personal(SecurityHeaders.htmlResponse(.ok, .stream(stream)), reader)
  }

  /// How long a page waits for its batch before it streams the head alone: a cache hit takes well
  /// under this, any upstream call longer.
  static let readyWithin = Duration.milliseconds(1)

  /// The value of `task` if it is ready within `limit`, else nil (the task runs on).
  static func value<T: Sendable>(of task: Task<T, Never>, within limit: Duration) async -> T? {
    let once = ResumeOnce<T?>()
    return await withCheckedContinuation { continuation in
      once.set(continuation)
      Task { once.resume(returning: await task.value) }
      Task {
        try? await Task.sleep(for: limit)
        once.resume(returning: nil)
      }
    }
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
      let location = kind.pageURL(page: after / configuration.batchSize + 1)
      return HTTPResponse(status: .seeOther, headers: ["Location": location, "Cache-Control": "no-cache"])
    }
    var reader = await self.reader(request)
    let fetched = await self.batch(kind, after: after, reload: false, reader: reader.credential)
    // A refused token ends the session; the batch already came anonymously, so no row is lost.
    if fetched.revoked { await signIn?.tokenRevoked(&reader) }
    var view = BatchView(
      batch: fetched.batch, kind: kind, batchSize: configuration.batchSize,
      prefetchMargin: configuration.prefetchMargin,
      largestStars: fetched.largest, now: now, firstOnPage: after == 0)
    if reader.signInEnabled {
      view.limit = limitOwner(reader)
      view.notice = reader.notice?.text
    }
    var body: [UInt8] = []
    body.reserveCapacity(2048 + fetched.batch.items.count * 2048)
    try templates.render("partials/cards", view.mustacheValue, into: &body)
    return Self.personal(SecurityHeaders.htmlResponse(.ok, .bytes(body)), reader)
  }

  /// One batch as fetched: the batch, the largest star count up to it (the bars' scale), upstream's
  /// result count (0 when no page was read), and whether GitHub refused the reader's token (the
  /// batch then came anonymously).
  struct FetchedBatch: Sendable {
    let batch: ListBatch<Repository>
    let largest: Int
    let total: Int
    let revoked: Bool
  }

  /// Whose rate limit a batch ran into: a signed-in reader's own, or the site's, with a sign-in link
  /// when sign-in is on.
  func limitOwner(_ reader: Reader) -> BatchView.LimitOwner {
    reader.session != nil ? .reader : .site(offersSignIn: reader.signInEnabled)
  }

  /// `response` marked private with the reader's cookies when it is personal; else unchanged.
  static func personal(_ response: HTTPResponse, _ reader: Reader) -> HTTPResponse {
    guard reader.isPersonal else { return response }
    var response = response
    reader.apply(to: &response)
    return response
  }

  /// One batch of a list, read as `reader` (nil: anonymously). The list index lets a batch at any
  /// depth read only the pages its cards come from; a reader who sees private repositories has other
  /// rows, so their lists neither use nor feed the shared index and card positions.
  func batch(_ kind: ListKind, after cursor: Int, reload: Bool, reader: ReaderCredential? = nil) async
    -> FetchedBatch
  {
    let revocation = reader == nil ? nil : Revocation()
    let source = GitHubSearchSource(client: client, query: kind.query, reader: reader, revocation: revocation)
    let list = PagedList(
      source: source, batchSize: configuration.batchSize, classify: GitHubSearchSource.classify)
    let batch: ListBatch<Repository>
    if reader?.seesPrivate == true {
      batch = await list.batch(after: cursor, reload: reload)
    } else {
      batch = await list.batch(after: cursor, reload: reload, index: listIndex, key: kind)
    }
    let revoked = revocation?.happened ?? false
    let readAs = revoked ? nil : reader
    await readAhead.consider(batch, query: kind.query, as: readAs)
    if readAs?.seesPrivate != true { warming.sent(batch, list: kind) }
    return FetchedBatch(batch: batch, largest: batch.measure, total: batch.reportedTotal, revoked: revoked)
  }

  /// A whole page rendered at once.
  func rendered(_ template: String, _ view: PageView, status: HTTPStatus) throws -> HTTPResponse {
    var body: [UInt8] = []
    body.reserveCapacity(8192)
    try templates.render(template, view.mustacheValue, into: &body)
    return SecurityHeaders.htmlResponse(status, .bytes(body))
  }

  /// The 404 page.
  func notFoundPage() -> HTTPResponse {
    var view = basePage(q: "", sort: nil, order: .desc)
    view.title = "Not found · RepoScroll"
    view.message = (heading: "Page not found", text: "There is nothing at this address.", back: "/")
    return (try? rendered("message", view, status: .notFound)) ?? .text(.notFound, "not found")
  }

  /// The `page` parameter: 1 when absent or malformed, at most `maxPage`.
  static func pageNumber(_ text: String?) -> Int {
    guard let text, let page = Int(text), page >= 1 else { return 1 }
    return min(page, maxPage)
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
