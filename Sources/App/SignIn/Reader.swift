import Credentials
import GitHub
import HTTP
import Sessions

/// Who a request is from, as the routes need it: anonymous or a signed-in reader, what to tell them
/// about their session, and the cookies to set on the answer.
struct Reader: Sendable {
  /// Something about the reader's session worth a visible notice.
  enum Notice: Sendable, Equatable {
    /// The session timed out or was signed out elsewhere.
    case ended
    /// GitHub refused the reader's token (revoked, or an eleventh sign-in replaced it) or its
    /// refresh token (used, revoked or expired).
    case revoked
    /// The session store cannot be reached: reading goes on anonymously for now.
    case unavailable

    /// The sentence the page shows.
    var text: String {
      switch self {
      case .ended:
        return
          "Your sign-in has ended. You are browsing anonymously; sign in again to use your own rate limit."
      case .revoked:
        return "GitHub no longer accepts your sign-in, so you were signed out. You are browsing anonymously."
      case .unavailable:
        return "Sign-in is unavailable right now. You are browsing anonymously until it is back."
      }
    }
  }

  /// Anonymous, as every reader is when sign-in is off.
  static let anonymous = Reader(signInEnabled: false)

  /// Whether the site offers sign-in at all.
  var signInEnabled: Bool
  /// The live session of a signed-in reader.
  var session: Session?
  /// A notice for this answer.
  var notice: Notice?
  /// `Set-Cookie` values for this answer.
  var setCookies: [String] = []
  /// The request's hold on the reader's token: renewed when GitHub refuses it. Anonymous readers
  /// share one that is never used (their calls carry no credential).
  var revocation = Reader.noHold
  private static let noHold = Revocation()

  init(signInEnabled: Bool) { self.signInEnabled = signInEnabled }

  /// The credential GitHub calls go out with; nil for anonymous readers (the server's token or none).
  var credential: ReaderCredential? { session?.record.reader }

  /// Whether the answer is personal (a signed-in header, a notice, a cookie change): then no cache
  /// may keep it or serve it to anyone else.
  var isPersonal: Bool { session != nil || notice != nil || !setCookies.isEmpty }

  /// Marks `response` private and adds the cookies; an anonymous answer is left exactly as it was.
  func apply(to response: inout HTTPResponse) {
    guard isPersonal else { return }
    response.replaceOrAddHeader(name: "Cache-Control", value: "private, no-store")
    for cookie in setCookies { response.headers.add(name: "Set-Cookie", value: cookie) }
  }
}
