import Clocks
import CurlClient
import GitHub
import Redis
import Sessions

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

extension RepoScrollApp {
  /// Sign-in as built at startup: the flow, and the Redis session store it made, which the app closes
  /// on shutdown (nil when sessions live in memory or in a store the caller gave).
  struct SignInParts {
    let signIn: SignIn
    let storeToClose: RedisSessionStore?
  }

  /// Sign in with GitHub as configured, or nil without a client id (then nothing changes). It stops
  /// startup, with a message naming the flag, when the secret is missing, the public URL is not one,
  /// or a plain-http public URL is not loopback and `--insecure-cookies` was not given. Sessions go to
  /// `sessionStore` when given (tests), else to Redis in shared mode, else to memory. `note` gets
  /// the startup lines (a random key, cookies without `Secure`).
  static func makeSignIn(
    _ configuration: AppConfiguration, transport: any HTTPClientTransport, sessionStore: (any SessionStore)?,
    time: TimeSource, note: @escaping @Sendable (String) -> Void
  ) throws(StartupError) -> SignInParts? {
    let now: @Sendable () -> Int = { time.epochSeconds() }
    guard let clientID = configuration.githubClientID else { return nil }
    guard let secret = configuration.githubClientSecret else {
      throw StartupError(
        description:
          "--github-client-id needs the client secret in GITHUB_CLIENT_SECRET or --github-client-secret-file")
    }
    let derived = configuration.publicURL == nil
    let text = configuration.publicURL ?? "http://\(hostForURL(configuration.host)):\(configuration.port)"
    guard let origin = PublicOrigin(text) else {
      throw StartupError(description: "--public-url: not an http(s) URL: \(text)")
    }
    if derived && !origin.loopback {
      throw StartupError(
        description:
          "sign-in needs --public-url (the URL readers reach this site at) when listening on \(configuration.host)"
      )
    }
    let cookies: CookiePolicy
    do {
      cookies = try CookiePolicy(origin, allowInsecure: configuration.insecureCookies)
    } catch {
      throw StartupError(description: error.description)
    }
    if let line = cookies.startupNote { note(line) }
    let key: SessionKey
    if let bytes = configuration.sessionKey {
      do {
        key = try SessionKey(bytes: bytes)
      } catch {
        throw StartupError(description: "--session-key-file: \(error)")
      }
    } else if configuration.redisURL != nil && sessionStore == nil {
      // Every instance must open every session: a key of its own would sign readers out as they
      // move between instances.
      throw StartupError(
        description:
          "sign-in with --redis needs --session-key-file: every instance must seal sessions under the same key"
      )
    } else {
      key = .random()
      note(
        "sign-in: no --session-key-file, so a random session key was made: sessions end when this process stops"
      )
    }
    var redisStore: RedisSessionStore?
    let store: any SessionStore
    if let sessionStore {
      store = sessionStore
    } else if let redis = try redisConfiguration(configuration) {
      do {
        let made = try RedisSessionStore(
          configuration: redis, replicaWait: sessionReplicaWait(configuration), time: time,
          log: note)
        redisStore = made
        store = made
      } catch {
        throw StartupError(description: "--redis: \(error)")
      }
    } else {
      store = MemorySessionStore(time: time)
    }
    var settings = GitHubOAuthConfiguration(clientID: clientID, clientSecret: secret)
    settings.webBase = configuration.githubWebURL
    settings.apiBase = configuration.githubAPI
    let oauth = GitHubOAuth(configuration: settings, transport: transport)
    var policy = SessionPolicy()
    policy.maxSessions = configuration.maxSessions
    let signIn = SignIn(
      oauth: oauth, book: SessionBook(key: key, store: store, policy: policy, time: time), key: key,
      cookies: cookies,
      origin: origin, derivedOrigin: derived, now: now, log: note)
    return SignInParts(signIn: signIn, storeToClose: redisStore)
  }

  /// A listen address as a URL host (IPv6 in brackets).
  static func hostForURL(_ host: String) -> String {
    host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
  }
}
