import HTTP

/// How the sign-in cookies are named and flagged for the site's public URL:
/// - https: `__Host-` names with `Secure; HttpOnly; SameSite=Lax; Path=/`;
/// - plain-http loopback (the demo): no `Secure` and no prefix, which WebKit would drop there;
/// - plain-http elsewhere: refused at startup unless the operator allows it (`--insecure-cookies`).
/// `SameSite=Lax`, not Strict: a Strict cookie is not sent on the navigation back from GitHub.
struct CookiePolicy: Sendable, Equatable {
  /// Why a public URL cannot carry sessions.
  struct Refusal: Error, CustomStringConvertible {
    /// Names the URL and the way out.
    let description: String
  }

  /// The session cookie's name.
  let session: String
  /// The login ticket cookie's name.
  let login: String
  /// Whether cookies carry `Secure`.
  let secure: Bool
  /// A line for the startup log when cookies go without `Secure`; nil for https.
  let startupNote: String?

  /// The policy for `origin`, or a refusal for a non-loopback plain-http URL unless `allowInsecure`.
  init(_ origin: PublicOrigin, allowInsecure: Bool) throws(Refusal) {
    if origin.secure {
      session = "__Host-reposcroll_session"
      login = "__Host-reposcroll_login"
      secure = true
      startupNote = nil
      return
    }
    guard origin.loopback || allowInsecure else {
      throw Refusal(
        description: "--public-url \(origin.url) is plain http and not loopback: session cookies would "
          + "travel in clear. Serve it over https, or pass --insecure-cookies to accept that.")
    }
    session = "reposcroll_session"
    login = "reposcroll_login"
    secure = false
    startupNote =
      origin.loopback
      ? "sign-in: the public URL is plain-http loopback, so cookies go without Secure and the __Host- prefix "
        + "(WebKit drops such cookies there)"
      : "sign-in: --insecure-cookies: cookies for \(origin.url) go without Secure, in clear"
  }

  /// A `Set-Cookie` value for `name=value` kept `maxAge` seconds (nil: until the browser closes).
  func setCookie(_ name: String, _ value: String, maxAge: Int?) -> String {
    var cookie = name + "=" + value + "; Path=/; HttpOnly; SameSite=Lax"
    if secure { cookie += "; Secure" }
    if let maxAge { cookie += "; Max-Age=\(maxAge)" }
    return cookie
  }

  /// A `Set-Cookie` value that deletes `name`.
  func clearCookie(_ name: String) -> String { setCookie(name, "", maxAge: 0) }

  /// The value of the first cookie called `name` in the request's `Cookie` headers.
  static func value(of name: String, in headers: HTTPHeaders) -> Substring? {
    for header in headers.values(for: "Cookie") {
      for pair in header.split(separator: ";") {
        let trimmed = pair.drop { $0 == " " || $0 == "\t" }
        guard trimmed.hasPrefix(name), trimmed.dropFirst(name.count).first == "=" else { continue }
        return trimmed.dropFirst(name.count + 1).prefix { $0 != " " && $0 != "\t" }
      }
    }
    return nil
  }
}
