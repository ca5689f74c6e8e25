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
  /// what the session book says.
  func reader(for request: HTTPRequest) async -> Reader {
    guard let value = CookiePolicy.value(of: cookies.session, in: request.headers) else {
      return Reader(signInEnabled: true)
    }
    var reader = Reader(signInEnabled: true)
    switch await book.lookup(cookieValue: value) {
    case .found(let session):
      reader.session = session
    case .invalid:
      reader.setCookies.append(cookies.clearCookie(cookies.session))
    case .ended:
      reader.setCookies.append(cookies.clearCookie(cookies.session))
      reader.notice = .ended
    case .unavailable:
      reader.notice = .unavailable
    }
    return reader
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

  /// Revokes `token` at GitHub in the background; a failure is logged (without the token).
  func revokeInBackground(_ token: String) {
    Task { [oauth, log] in
      do throws(OAuthError) {
        try await oauth.revoke(token: token)
      } catch {
        log("sign-in: token revocation at GitHub failed: \(error)")
      }
    }
  }
}
