/// The site's public URL, split into what sign-in needs: whether it is https, whether its host is
/// loopback, and the URL itself (the OAuth redirect URI and the origin `Origin` headers must match).
struct PublicOrigin: Sendable, Equatable {
  /// `https://host[:port][/prefix]` or `http://…`, without a trailing slash.
  let url: String
  /// `scheme://host[:port]`, lowercase and without a default port (443 for https, 80 for http): what
  /// browsers send in `Origin`.
  let origin: String
  /// True for https.
  let secure: Bool
  /// True when the host is `localhost`, `127.0.0.0/8` or `[::1]`.
  let loopback: Bool

  /// Parses `text`; nil for anything but an absolute http(s) URL with a host and no query,
  /// fragment, user info or backslash.
  init?(_ text: String) {
    let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
    let secure: Bool
    if trimmed.hasPrefix("https://") {
      secure = true
    } else if trimmed.hasPrefix("http://") {
      secure = false
    } else {
      return nil
    }
    let rest = trimmed.dropFirst(secure ? 8 : 7)
    guard !rest.isEmpty, rest.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }),
      !rest.contains(where: { "?#@\\".contains($0) })
    else { return nil }
    let authority = rest.prefix { $0 != "/" }
    guard !authority.isEmpty else { return nil }
    let host: Substring
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return nil }
      host = authority[...close]
    } else {
      host = authority.prefix { $0 != ":" }
    }
    guard !host.isEmpty else { return nil }
    let lower = host.lowercased()
    self.url = trimmed
    self.origin = Self.withoutDefaultPort(secure: secure, authority.lowercased())
    self.secure = secure
    self.loopback =
      lower == "localhost" || lower == "[::1]" || lower.hasSuffix(".localhost")
      || (lower.hasPrefix("127.") && lower.split(separator: ".").count == 4
        && lower.split(separator: ".").allSatisfy { UInt8($0) != nil })
  }

  /// An `Origin` header's value as `origin` is written: lowercase, without a default port; nil for
  /// `null` or anything but `http(s)://authority`.
  static func normalized(_ sent: String) -> String? {
    let lower = sent.lowercased()
    let secure: Bool
    if lower.hasPrefix("https://") {
      secure = true
    } else if lower.hasPrefix("http://") {
      secure = false
    } else {
      return nil
    }
    let authority = lower.dropFirst(secure ? 8 : 7)
    guard !authority.isEmpty, !authority.contains("/") else { return nil }
    return withoutDefaultPort(secure: secure, String(authority))
  }

  /// `scheme://authority` with `:443` (https) or `:80` (http) dropped.
  private static func withoutDefaultPort(secure: Bool, _ authority: String) -> String {
    let port = secure ? ":443" : ":80"
    let host = authority.hasSuffix(port) ? String(authority.dropLast(port.count)) : authority
    return (secure ? "https://" : "http://") + host
  }
}
