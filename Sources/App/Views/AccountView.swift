import Credentials
import Encodings
import GitHub
import HTTP
import Mustache
import Sessions

/// The header's account area (`partials/header`): for a signed-in reader their avatar (through this
/// server's `/avatars/{id}`, never hot-linked), login and a sign-out form carrying the session's CSRF
/// token; for anyone else a "Sign in with GitHub" link back to the current page. Absent when sign-in
/// is off. The token and the session id are never in it.
enum AccountView {
  /// The names the header reads (checked when templates load).
  static let templateNames = [
    "account", "account.login", "account.avatar", "account.avatar2x", "account.csrf", "account.here",
    "account.signIn", "readerNotice",
  ]

  /// The account value for `reader` on a page at `here` (a path), or nil when sign-in is off.
  static func value(_ reader: Reader, here: String) -> MustacheValue? {
    guard reader.signInEnabled else { return nil }
    let back = ReturnPath.sanitized(here)
    guard let session = reader.session else {
      return .object(["signIn": .string(signInURL(returnTo: back))])
    }
    let id = session.record.reader.userID
    return .object([
      "login": .string(session.record.reader.login),
      "avatar": .string("/avatars/\(id)?s=32"), "avatar2x": .string("/avatars/\(id)?s=64"),
      "csrf": .string(session.csrfToken), "here": .string(back),
    ])
  }

  /// `/login?return_to=…` for a same-origin path.
  static func signInURL(returnTo: String) -> String {
    "/login?" + URLEncoding.formatQuery([("return_to", ReturnPath.sanitized(returnTo))])
  }
}
