import Credentials
import CurlClient
import GitHub
import HTTP
import Sessions
import Synchronization

/// Everything "Sign in with GitHub" needs, built at startup when a client id is configured: the
/// OAuth client, the session book, the cookie policy and the public URL the redirect URI hangs off.
final class SignIn: Sendable {
  let oauth: GitHubOAuth
  let book: SessionBook
  let key: SessionKey
  let cookies: CookiePolicy
  /// Unix seconds (injected, so tests move time).
  let now: @Sendable () -> Int
  /// The public URL; when not configured, `http://host:port` once the port is known (`start`).
  private let origin: Mutex<PublicOrigin>
  /// Where sign-in events go (never with a token or session id).
  private let log: @Sendable (String) -> Void
  /// Refreshes, revocations and refusals, for `/metrics`.
  let metrics = SignInMetrics()

  /// Whether the public URL was derived from the listen address (then `start` fixes its port).
  let derivedOrigin: Bool

  init(
    oauth: GitHubOAuth, book: SessionBook, key: SessionKey, cookies: CookiePolicy, origin: PublicOrigin,
    derivedOrigin: Bool, now: @escaping @Sendable () -> Int, log: @escaping @Sendable (String) -> Void
  ) {
    self.derivedOrigin = derivedOrigin
    self.oauth = oauth
    self.book = book
    self.key = key
    self.cookies = cookies
    self.origin = Mutex(origin)
    self.now = now
    self.log = log
  }

  /// The public URL in use.
  var publicOrigin: PublicOrigin { origin.withLock { $0 } }

  /// Replaces a derived public URL with the bound port's (`RepoScrollApp.start` with port 0).
  func setOrigin(_ new: PublicOrigin) { origin.withLock { $0 = new } }

  /// The exact redirect URI registered with the OAuth app.
  var redirectURI: String { publicOrigin.url + "/login/callback" }

  /// The reader behind `request`: anonymous without a session cookie (no store is asked then), else
  /// what the session book says. A token about to expire is renewed first (once for every request
  /// and instance); one that cannot be renewed ends the session with a notice; a session found past
  /// its timeout is ended and its token revoked.
  func reader(for request: HTTPRequest) async -> Reader {
    guard let value = CookiePolicy.value(of: cookies.session, in: request.headers) else {
      return Reader(signInEnabled: true)
    }
    var reader = Reader(signInEnabled: true)
    switch await book.lookup(cookieValue: value) {
    case .found(let session):
      guard let usable = await renewedIfDue(session, &reader) else { return reader }
      reader.session = usable
      reader.revocation = Revocation { [self] refused in await self.renew(usable, refused: refused) }
    case .invalid:
      reader.setCookies.append(cookies.clearCookie(cookies.session))
    case .ended:
      reader.setCookies.append(cookies.clearCookie(cookies.session))
      reader.notice = .ended
    case .expired(let stale):
      revokeInBackground(stale.token)
      reader.setCookies.append(cookies.clearCookie(cookies.session))
      reader.notice = .ended
    case .unavailable:
      reader.notice = .unavailable
    }
    return reader
  }

  /// `session` ready for use: as it is, or with its token renewed when the policy says so. Nil when
  /// it cannot be used for this request (then `reader` carries the notice and cookie to send).
  private func renewedIfDue(_ session: Session, _ reader: inout Reader) async -> Session? {
    let verdict = book.policy.tokenVerdict(session.record, now: now())
    if verdict == .use { return session }
    switch await book.renew(session, refused: nil, with: self) {
    case .renewed(let renewed):
      return renewed
    case .refused, .ended:
      reader.setCookies.append(cookies.clearCookie(cookies.session))
      reader.notice = verdict == .cannotRenew ? .ended : .revoked
      return nil
    case .unavailable:
      // Not renewed now: the token is used while it lasts; past its expiry the reader reads
      // anonymously for now, and keeps the session for when GitHub or the store is back.
      if let expiry = session.record.expiry, now() < expiry.accessExpires { return session }
      reader.notice = .unavailable
      return nil
    }
  }

  /// A request's renewal after GitHub refused `refused` (401): the session's renewed credential, or
  /// why there is none. The book makes one refresh for all the requests and instances that ask.
  func renew(_ session: Session, refused: ReaderCredential) async -> Revocation.Outcome {
    switch await book.renew(session, refused: refused.token, with: self) {
    case .renewed(let renewed): return .renewed(renewed.record.reader)
    case .refused, .ended: return .refused
    case .unavailable: return .unavailable
    }
  }

  /// Ends a session whose token GitHub no longer accepts (401): deleted everywhere, cookie cleared,
  /// and the reader told, who goes on anonymously.
  func tokenRevoked(_ reader: inout Reader) async {
    guard let session = reader.session else { return }
    reader.session = nil
    reader.notice = .revoked
    reader.setCookies.append(cookies.clearCookie(cookies.session))
    do {
      try await book.end(session.id)
    } catch {
      log("sign-in: could not delete a revoked session (\(error)); it expires by itself")
    }
  }

  /// Revokes `token` at GitHub in the background; a failure is logged (one line, without the token)
  /// and never shown to the reader.
  func revokeInBackground(_ token: String) {
    Task { [oauth, log, metrics] in
      do throws(OAuthError) {
        try await oauth.revoke(token: token)
        metrics.revoked(.ok)
      } catch {
        metrics.revoked(error == .unauthorized ? .refused : .failed)
        log("sign-in: token revocation at GitHub failed: \(error)")
      }
    }
  }
}

extension SignIn: TokenRefresher {
  /// The refresh at GitHub, for the session book (which calls it once per refresh token).
  func refresh(_ refreshToken: String) async throws(OAuthError) -> OAuthGrant {
    do {
      let grant = try await oauth.refresh(refreshToken: refreshToken)
      metrics.refreshed(.ok)
      return grant
    } catch {
      metrics.refreshed(error == .badRefreshToken ? .refused : .failed)
      if error != .badRefreshToken { log("sign-in: token refresh at GitHub failed: \(error)") }
      throw error
    }
  }
}
