import Clocks
import CurlClient
import GitHub
import Glibc
import HTTP
import SharedStore

/// The app's way to GitHub: the one `GitHubClient` every route shares (its cache and rate-limit
/// state live as long as the app), over two libcurl clients (API and avatars) unless tests inject
/// transports.
struct Upstream: Sendable {
  let client: GitHubClient
  /// The transport for API calls, which sign-in's OAuth exchange also uses.
  let api: any HTTPClientTransport
  /// The libcurl clients this made (stopped on shutdown); empty when transports were injected.
  let curlClients: [CurlHTTPClient]

  /// Configures the client from the flags (API and avatar bases, token, cache lifetimes and size),
  /// with the shared store when given. Stops startup when `--ca-file` cannot be read.
  init(
    _ configuration: AppConfiguration, transport: (any HTTPClientTransport)?,
    avatarTransport: (any HTTPClientTransport)?, sharedStore: (any SharedStore)?, logs: AppLogs,
    time: TimeSource
  ) throws(RepoScrollApp.StartupError) {
    var github = GitHubConfiguration()
    if let access = logs.access {
      github.eventLog = { @Sendable line in access.event(line) }
    }
    github.apiBase = configuration.githubAPI
    github.avatarBase = configuration.avatarBase
    github.token = configuration.githubToken
    github.searchTTL = .seconds(configuration.searchTTL)
    github.historyTTL = .seconds(configuration.historyTTL)
    github.cacheBytes = configuration.cacheBytes
    if let caFile = configuration.caFile, access(caFile, R_OK) != 0 {
      throw RepoScrollApp.StartupError(description: "--ca-file: cannot read \(caFile)")
    }
    if let transport {
      curlClients = []
      api = transport
      client = GitHubClient(
        configuration: github, transport: transport, avatarTransport: avatarTransport,
        sharedStore: sharedStore, time: time)
      return
    }
    let events = logs.events
    var apiSettings = CurlClientConfiguration(totalTimeout: .seconds(configuration.upstreamTimeout))
    apiSettings.maxConcurrentRequests = configuration.apiTransfers
    apiSettings.caFile = configuration.caFile
    apiSettings.failureLog = { events.event($0) }
    // Avatars get their own thread, transfers and connection cache: a slow avatar host only
    // ever waits on itself.
    var avatars = apiSettings
    avatars.maxConcurrentRequests = configuration.avatarTransfers
    avatars.totalTimeout = .seconds(10)
    let apiClient = CurlHTTPClient(configuration: apiSettings)
    let avatarClient = CurlHTTPClient(configuration: avatars)
    curlClients = [apiClient, avatarClient]
    api = apiClient
    client = GitHubClient(
      configuration: github, transport: apiClient, avatarTransport: avatarClient, sharedStore: sharedStore,
      time: time)
  }
}
