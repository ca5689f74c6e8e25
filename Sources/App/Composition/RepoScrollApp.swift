import Clocks
import Credentials
import CurlClient
import GitHub
import Glibc
import HTTP
import HTTPServer
import Mustache
import Sessions
import SharedStore
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The product: routes for the search page, result fragments, owner lists, star details, avatars,
/// health and metrics, on top of the GitHub client, the Paging machinery and the templates.
public final class RepoScrollApp: Sendable {
  /// Startup failures: a template that does not parse (with file, line and column), a missing
  /// template or asset, or a static folder that does not exist.
  public struct StartupError: Error, CustomStringConvertible {
    /// What failed, with its location.
    public let description: String
  }

  let configuration: AppConfiguration
  /// The app's one clock, handed to everything that reads the time.
  public let time: TimeSource
  /// Sign in with GitHub, when a client id is configured.
  let signIn: SignIn?
  let accessLog: AccessLog?
  /// Set when shutdown begins (`/healthz` then answers 503).
  let draining: Draining
  let readAhead: ReadAhead
  let warming: Warming
  /// The libcurl clients the app owns (API and avatars), stopped on shutdown; empty when injected.
  private let curlClients: [CurlHTTPClient]
  private let server = Mutex<HTTPServer?>(nil)
  /// The Redis session store the app made (shared mode with sign-in), closed on shutdown.
  private let sessionStoreToClose: RedisSessionStore?
  /// Where startup events go: the test log, else standard error.
  private let eventLog: AccessLog
  /// The whole app as one handler (for in-process tests); the server runs the same one.
  let handler: HTTPHandler
  /// The route table the handler was made from (`routeListing`).
  let routes: Routes

  /// The GitHub client all routes share (its cache and rate-limit state live as long as the app).
  let client: GitHubClient
  /// Request counters for `/metrics`.
  let metrics: Metrics

  /// Loads templates and static files and builds the GitHub client (over libcurl unless `transport`
  /// is given; avatars then go through `avatarTransport`, or `transport` when that is nil).
  /// `log` receives one access-log line per request and one per failed upstream transfer; nil writes
  /// them to standard error when `configuration.accessLog` is on (failures are written even when off).
  /// With `sharedStore` (see `connectSharedStore`), the GitHub cache, rate-limit ledger and
  /// coalescing are shared with the other instances using the same store.
  /// With `configuration.githubClientID`, sign-in is on: sessions go to `sessionStore` when given,
  /// else to Redis with `redisURL`, else to memory. `time` is where every "now" of the app comes from:
  /// the GitHub client's, the sessions', the logs' and the server's.
  public init(
    configuration: AppConfiguration, transport: (any HTTPClientTransport)? = nil,
    avatarTransport: (any HTTPClientTransport)? = nil, sharedStore: (any SharedStore)? = nil,
    sessionStore: (any SessionStore)? = nil, time: TimeSource,
    log: (@Sendable (String) -> Void)? = nil
  ) throws(StartupError) {
    self.configuration = configuration
    self.time = time
    let site = try SiteFiles(configuration, time: time)
    let logs = AppLogs(configuration, sink: log, time: time)
    let upstream = try Upstream(
      configuration, transport: transport, avatarTransport: avatarTransport, sharedStore: sharedStore,
      logs: logs, time: time)
    let signingIn = try Self.makeSignIn(
      configuration, transport: upstream.api, sessionStore: sessionStore, time: time, note: logs.note)
    client = upstream.client
    curlClients = upstream.curlClients
    sessionStoreToClose = signingIn?.storeToClose
    eventLog = logs.events
    accessLog = logs.access
    signIn = signingIn?.signIn
    metrics = Metrics()
    draining = Draining()
    readAhead = ReadAhead(
      client: client, lead: configuration.readAhead, freshFor: configuration.searchTTL, time: time)
    warming = Warming(
      client: client, historiesAhead: configuration.warmHistories, avatars: configuration.warmAvatars,
      time: time)
    do throws(TemplateRef.Missing) {
      routes = try Self.routes(
        site, configuration: configuration, client: client, metrics: metrics, draining: draining,
        readAhead: readAhead, warming: warming, signIn: signIn, accessLog: accessLog,
        sharedStore: sharedStore, time: time)
    } catch {
      throw StartupError(description: "template error: \(configuration.templatesDirectory)/\(error)")
    }
    handler = routes.handler
  }

  /// The handlers, each given only what it uses, in the route table: the templates it renders,
  /// each looked up here once (a missing one stops startup, naming its user). Every handler reads
  /// the time from the app's one clock: Unix seconds through `now`, request durations through `time`.
  /// Static, with the app's parts as arguments: `init` calls it before every stored property is set.
  private static func routes(
    _ site: SiteFiles, configuration: AppConfiguration, client: GitHubClient, metrics: Metrics,
    draining: Draining, readAhead: ReadAhead, warming: Warming, signIn: SignIn?, accessLog: AccessLog?,
    sharedStore: (any SharedStore)?, time: TimeSource
  ) throws(TemplateRef.Missing) -> Routes {
    let templates = site.templates
    let assets = site.assets
    let staticFiles = site.staticFiles
    let modules = site.modules
    let now: @Sendable () -> Int = { time.epochSeconds() }
    let lists = ListBatches(
      client: client, batchSize: configuration.batchSize, prefetchMargin: configuration.prefetchMargin,
      lifetime: configuration.searchTTL, readAhead: readAhead, warming: warming, now: now)
    let readerLookup = ReaderLookup(signIn: signIn)
    func template(_ name: String, for user: Any.Type) throws(TemplateRef.Missing) -> TemplateRef {
      try TemplateRef(name, in: templates, for: "\(user)")
    }
    let pages = PageRenderer(
      assets: assets, hasToken: configuration.githubToken != nil,
      page: try template("page", for: PageRenderer.self),
      message: try template("message", for: PageRenderer.self))
    return Routes(
      pages: PageHandler(
        lists: lists, pages: pages, readerLookup: readerLookup,
        pageStart: try template("partials/page-start", for: PageHandler.self),
        pageEnd: try template("partials/page-end", for: PageHandler.self)),
      fragments: FragmentHandler(
        lists: lists, readerLookup: readerLookup,
        cards: try template("partials/cards", for: FragmentHandler.self)),
      details: DetailsHandler(
        client: client, warming: warming, readerLookup: readerLookup, now: now,
        starsTemplate: try template("partials/stars", for: DetailsHandler.self),
        starsBatchTemplate: try template("partials/stars-batch", for: DetailsHandler.self)),
      signIn: signIn.map { SignInHandler(signIn: $0, pages: pages, accessLog: accessLog) },
      ops: OpsHandler(
        requests: metrics, processMetrics: ProcessMetrics(), readAhead: readAhead, warming: warming,
        client: client, sharedStore: sharedStore, draining: draining, now: now, signIn: signIn?.metrics),
      statics: StaticHandler(files: staticFiles, modules: modules, metrics: metrics, time: time),
      notFound: pages,
      pipeline: Pipeline.middleware(metrics: metrics, accessLog: accessLog, time: time))
  }

  /// Writes one event line (startup, shutdown) to standard error in the configured log format,
  /// redacted like the access log, stamped by `time`.
  public static func logEvent(
    _ message: String, configuration: AppConfiguration, time: TimeSource, level: String = "info"
  ) {
    AccessLog(
      sink: nil, secrets: configuration.secrets, format: configuration.logFormat,
      instance: configuration.instance ?? AccessLog.defaultInstance, time: time
    ).event(configuration.logFormat == .json ? message : "repo-scroll: " + message, level: level)
  }

  /// Asks GitHub what the server's token may see (`GET /user`'s `X-OAuth-Scopes`) and logs one
  /// warning when it may see private repositories (the executable calls it once, after `start`): anonymous readers' answers are then screened (and
  /// always are), and their star histories need a visibility check when no search told it. Returns
  /// what GitHub said; nil without a token or without an answer (the token then counts as one that may
  /// see private data, and the warning says that).
  @discardableResult
  public func checkServerToken() async -> RepositoryAccess? {
    guard configuration.githubToken?.isEmpty == false else { return nil }
    let access = await client.checkServerToken()
    switch access {
    case .publicOnly:
      break
    case .repoScope:
      eventLog.event(
        "warning: the GitHub token has the repo scope, so it sees private repositories; anonymous readers "
          + "are never shown them (they are left out and counted), but a token with public access only is safer",
        level: "warn")
    case .unknown:
      eventLog.event(
        "warning: the GitHub token has no OAuth scopes (a fine-grained or GitHub App token), so it may see "
          + "private repositories; anonymous readers are never shown them (they are left out and counted)",
        level: "warn")
    case nil:
      eventLog.event(
        "warning: could not check what the GitHub token may see (GET /user failed); until then it counts as "
          + "one that sees private repositories, which anonymous readers are never shown",
        level: "warn")
    }
    return access
  }

  /// Starts listening; returns the bound port.
  @discardableResult
  public func start() throws -> Int {
    var settings = HTTPServerConfiguration(time: time)
    settings.host = configuration.host
    settings.port = configuration.port
    settings.maxConnections = configuration.maxConnections
    settings.headerTimeout = .seconds(configuration.headerTimeout)
    settings.idleTimeout = .seconds(configuration.idleTimeout)
    settings.drainTimeout = .seconds(configuration.drainTimeout)
    settings.trustedProxies = configuration.trustedProxies
    let http = HTTPServer(configuration: settings, handler: handler, accessLog: accessLog?.writer)
    let port = try http.start()
    server.withLock { $0 = http }
    // A public URL derived from the listen address gets the port actually bound (port 0 picks one).
    if let signIn, signIn.derivedOrigin,
      let bound = PublicOrigin("http://\(Self.hostForURL(configuration.host)):\(port)")
    {
      signIn.setOrigin(bound)
    }
    return port
  }

  /// Drains the server (in-flight requests finish within the drain timeout), then stops libcurl.
  public func shutdown() async {
    // From now on /healthz says 503 "draining" to whoever still asks on an open connection.
    draining.begin()
    let http = server.withLock { s -> HTTPServer? in
      defer { s = nil }
      return s
    }
    await http?.shutdown()
    for curl in curlClients { curl.shutdown() }
    sessionStoreToClose?.shutdown()
  }
}
