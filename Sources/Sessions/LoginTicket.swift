import Encodings
import Sealing

/// What `/login` hands the browser to bring back to `/login/callback`: the OAuth `state`, the PKCE
/// verifier and where to return, sealed (encrypted and authenticated) under the session key with an
/// expiry, in a short-lived HttpOnly cookie. Nothing is stored server-side, so any instance can
/// finish a sign-in another one started.
///
/// ```swift
/// let ticket = LoginTicket.start(returnTo: "/?q=swift", now: t)
/// let cookie = ticket.sealed(key: key)              // Set-Cookie value
/// LoginTicket.open(cookie[...], key: key, now: t)   // the same ticket until it expires
/// ```
public struct LoginTicket: Sendable, Equatable, CustomStringConvertible {
  /// Seconds a sign-in may take from `/login` to the callback.
  public static let lifetime = 600

  /// 128 random bits, base64url: the `state` parameter.
  public var state: String
  /// 256 random bits, base64url (43 characters, RFC 7636's minimum length).
  public var verifier: String
  /// The same-origin path to return to.
  public var returnTo: String
  /// Unix seconds after which the ticket is refused.
  public var expires: Int

  /// A new ticket with fresh random state and verifier, valid for `lifetime` seconds from `now`.
  public static func start(returnTo: String, now: Int) -> LoginTicket {
    LoginTicket(
      state: Sodium.base64URL(Sodium.randomBytes(16)), verifier: Sodium.base64URL(Sodium.randomBytes(32)),
      returnTo: returnTo, expires: now.addingReportingOverflow(lifetime).partialValue)
  }

  /// The cookie value: base64url of the sealed ticket.
  public func sealed(key: SessionKey) -> String {
    var writer = ByteWriter(capacity: 128 + returnTo.utf8.count)
    writer.string(state)
    writer.string(verifier)
    writer.string(returnTo)
    writer.signed(expires)
    return Sodium.base64URL(Sodium.seal(writer.bytes, associated: Self.associated, key: key.tickets))
  }

  /// The ticket in a cookie value, or nil when it is malformed, forged, sealed under another key,
  /// or expired at `now`.
  public static func open(_ value: Substring, key: SessionKey, now: Int) -> LoginTicket? {
    guard value.utf8.count <= 4096, let sealed = Sodium.fromBase64URL(value, maxBytes: 3072),
      let plain = Sodium.open(sealed, associated: associated, key: key.tickets)
    else { return nil }
    var reader = ByteReader(plain)
    guard let state = reader.string(maxBytes: 64), let verifier = reader.string(maxBytes: 128),
      let returnTo = reader.string(maxBytes: 2048), let expires = reader.signed(), reader.isAtEnd,
      now < expires
    else { return nil }
    return LoginTicket(state: state, verifier: verifier, returnTo: returnTo, expires: expires)
  }

  /// Whether `presented` is this ticket's state, compared in constant time.
  public func matches(state presented: String) -> Bool {
    Sodium.constantTimeEqual(Array(presented.utf8), Array(state.utf8))
  }

  /// The associated data of tickets, so a sealed session record can never pass for one.
  private static let associated = Array("reposcroll login ticket v1".utf8)

  /// Where it returns to, never the state or verifier.
  public var description: String { "LoginTicket(returnTo: \(returnTo), expires: \(expires))" }
}
