import GitHub
import Glibc
import HTTP
import HTTPServer
import Mustache
import Paging
import SharedStore
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// Everything the route handlers share, built once at startup. It does not hold the handler it
/// makes, so the closures can capture it strongly without a cycle.
final class Routes: Sendable {
  /// Templates the routes render; startup fails without them.
  static let requiredTemplates = [
    "page", "partials/page-start", "partials/page-end", "partials/cards", "partials/stars",
    "partials/stars-batch", "message",
  ]
  /// Every ES module in the static folder, and the ones the page loads (in order; they import the rest).
  static let moduleFiles = [
    "cards.js", "scroll.js", "place.js", "feed.js", "details.js", "motion.js", "localtime.js",
  ]
  static let entryModules = ["feed.js", "details.js", "motion.js", "localtime.js"]

  /// Loads the app's templates from `directory`, each bound to or checked against the view model it
  /// renders (a name a template reads that its view model lacks stops startup with file, line and
  /// column), with the indentation and line-break runs HTML does not show trimmed from their output.
  static func loadTemplates(directory: String) throws(MustacheError) -> TemplateLibrary {
    try TemplateLibrary(
      directory: directory, bindings: ["partials/card": CardField.schema], vocabulary: vocabulary(of:),
      trimWhitespace: true)
  }

  /// The names template `name` may read: the stars templates render star histories; every other
  /// unbound template renders a page or a batch of one (a batch's templates are also partials of the
  /// page, inside `{{#batch}}`).
  static func vocabulary(of name: String) -> MustacheSchema {
    name.hasPrefix("partials/stars") ? starsNames : pageNames
  }

  private static let pageNames = MustacheSchema(
    "the page view", names: PageView.templateNames + BatchView.templateNames + AccountView.templateNames)
  private static let starsNames = MustacheSchema("the stars view", names: StarsView.templateNames)

  let configuration: AppConfiguration
  let templates: TemplateLibrary
  let staticFiles: StaticFiles
  /// The page's ES modules under their fingerprinted folder.
  let modules: ModuleSet
  /// Hashed asset URLs for every page.
  let assets: MustacheValue
  let client: GitHubClient
  /// The store shared with other instances, if any (shown in `/metrics` and `/healthz`).
  let sharedStore: (any SharedStore)?
  let metrics = Metrics()
  /// Set when shutdown begins: `/healthz` answers 503 so balancers stop sending here.
  let draining = Atomic<Bool>(false)
  /// When the process started, for `process_start_time_seconds`.
  let processMetrics = ProcessMetrics()
  let accessLog: AccessLog?
  let readAhead: ReadAhead
  let warming: Warming
  /// Sign in with GitHub, when a client id is configured.
  let signIn: SignIn?
  /// Where each list's upstream pages fall in its de-duplicated rows, for as long as search pages stay
  /// fresh: a fragment at any depth reads only the pages its cards come from.
  let listIndex: ListIndex<ListKind, Int>

  init(
    configuration: AppConfiguration, templates: TemplateLibrary, staticFiles: StaticFiles,
    modules: ModuleSet, assets: MustacheValue, client: GitHubClient, sharedStore: (any SharedStore)? = nil,
    accessLog: AccessLog?, signIn: SignIn? = nil
  ) {
    self.signIn = signIn
    self.sharedStore = sharedStore
    self.configuration = configuration
    self.templates = templates
    self.staticFiles = staticFiles
    self.modules = modules
    self.assets = assets
    self.client = client
    self.accessLog = accessLog
    readAhead = ReadAhead(client: client, lead: configuration.readAhead, freshFor: configuration.searchTTL)
    warming = Warming(
      client: client, historiesAhead: configuration.warmHistories, avatars: configuration.warmAvatars)
    let started = ContinuousClock.now
    listIndex = ListIndex(
      capacity: 64, lifetime: configuration.searchTTL,
      clock: { Int((ContinuousClock.now - started).components.seconds) })
  }

  /// Unix seconds now.
  var now: Int { Int(Date().timeIntervalSince1970) }

  // MARK: Dispatch

  func makeHandler() -> HTTPHandler {
    var router = Router()
    router.get("/") { [self] request, _ in try await searchPage(request) }
    router.get("/fragments/results") { [self] request, _ in try await searchFragment(request) }
    router.get("/owners/{login}") { [self] request, context in try await ownerPage(request, context) }
    router.get("/fragments/owners/{login}") { [self] request, context in
      try await ownerFragment(request, context)
    }
    router.get("/fragments/stars") { [self] request, _ in await starsBatchFragment(request) }
    router.get("/fragments/stars/{owner}/{repo}") { [self] request, context in
      await starsFragment(request, context)
    }
    router.get("/avatars/{id}") { [self] request, context in await avatarImage(request, context) }
    router.get("/login") { [self] request, _ in await login(request) }
    router.get("/login/callback") { [self] request, _ in await loginCallback(request) }
    router.post("/logout") { [self] request, _ in await logout(request) }
    router.get("/logout") { [self] request, _ in await logoutPage(request) }
    router.get("/healthz") { [self] _, _ in await healthText() }
    router.get("/metrics") { [self] _, _ in await metricsText() }
    router.fallback { [self] _, _ in notFoundPage() }
    let routed = router.handler
    return { [self] request, context in
      if request.path.utf8.starts(with: Self.staticPrefix) { return await staticFile(request) }
      return await instrumented(request, context, routed)
    }
  }

  private static let staticPrefix = "/static/".utf8

  /// The static route, kept lean: the files' answers are built ahead with the security headers in.
  private func staticFile(_ request: HTTPRequest) async -> HTTPResponse {
    let started = ContinuousClock.now
    metrics.started()
    var response: HTTPResponse
    if let module = modules.resolve(request.path) {
      var forwarded = request
      forwarded.target = module
      response = await staticFiles.response(for: forwarded, urlPrefix: "/static")
    } else {
      response = await staticFiles.response(for: request, urlPrefix: "/static")
    }
    // Prebuilt answers carry the security headers already; only the rare 404 and 405 need them.
    if response.serializedHeaders == nil { SecurityHeaders.apply(to: &response.headers) }
    metrics.finished(
      route: "static", status: response.status.code, seconds: (ContinuousClock.now - started).secondsValue)
    return response
  }

  /// Runs a route, then adds the security headers and counts it (for streamed pages once the last
  /// chunk went out). The server writes the access-log line.
  private func instrumented(_ request: HTTPRequest, _ context: RequestContext, _ route: HTTPHandler) async
    -> HTTPResponse
  {
    let started = ContinuousClock.now
    metrics.started()
    var response: HTTPResponse
    do {
      response = try await route(request, context)
    } catch let error as HTTPError {
      response = error.response
    } catch {
      accessLog?.note("handler error: \(error)", requestID: context.requestID)
      response = HTTPResponse.text(.internalServerError, "internal server error")
    }
    // Prebuilt HTML answers carry the security headers already (and stay serialised).
    if response.serializedHeaders == nil { SecurityHeaders.apply(to: &response.headers) }
    HTMLDelivery.apply(to: &response, for: request)
    let name = Self.routeName(request.path)
    let status = response.status.code
    let finish: @Sendable () -> Void = { [metrics] in
      metrics.finished(route: name, status: status, seconds: (ContinuousClock.now - started).secondsValue)
    }
    switch response.body {
    case .bytes:
      finish()
    case .stream(let inner):
      response.body = .stream(Self.counting(inner, finish: finish))
    }
    return response
  }

  /// Passes a stream through, reporting when it ends or is abandoned.
  private static func counting(
    _ inner: AsyncThrowingStream<[UInt8], any Error>, finish: @escaping @Sendable () -> Void
  ) -> AsyncThrowingStream<[UInt8], any Error> {
    let (outer, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
    let task = Task {
      do {
        for try await chunk in inner { continuation.yield(chunk) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
      finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return outer
  }

  /// The metrics label of a path (a fixed set, so labels cannot grow with input).
  static func routeName(_ path: Substring) -> String {
    var path = path
    // Compared as bytes in place: every request is labelled, and `Substring.hasPrefix` compares
    // characters.
    return path.withUTF8 { bytes in
      func starts(_ prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count >= count, let base = bytes.baseAddress else { return false }
        return memcmp(base, prefix.utf8Start, count) == 0
      }
      func equals(_ whole: StaticString) -> Bool { bytes.count == whole.utf8CodeUnitCount && starts(whole) }
      if equals("/") { return "page" }
      if starts("/fragments/results") { return "fragment" }
      if starts("/fragments/stars/") { return "stars" }
      if equals("/fragments/stars") { return "stars_batch" }
      if starts("/fragments/owners/") { return "owner_fragment" }
      if starts("/owners/") { return "owner" }
      if starts("/avatars/") { return "avatar" }
      if equals("/login") { return "login" }
      if equals("/login/callback") { return "login_callback" }
      if equals("/logout") { return "logout" }
      if starts("/static/") { return "static" }
      if equals("/healthz") { return "healthz" }
      if equals("/metrics") { return "metrics" }
      return "other"
    }
  }
}
