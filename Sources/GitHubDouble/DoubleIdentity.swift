import Clocks
import HTTP
import Synchronization

/// Whom a request to the double is made as, read from its `Authorization` header (for a refresh,
/// from the refresh token it presents): which kind of token, whose, and whether it still works.
enum DoubleIdentity: Equatable {
  /// No credential.
  case anonymous
  /// A credential the double did not issue (the server's token, or an app's Basic credentials).
  case server
  /// A live token the double issued to a signed-in user.
  case reader(OAuthTokenRecord)
  /// A token the double issued that is past its expiry (a GitHub App's, 8 hours on): GitHub answers
  /// 401 until it is refreshed.
  case expired(OAuthTokenRecord)
  /// A user token that is revoked or rotated away (whose it was, when known) or was never issued:
  /// GitHub answers 401.
  case invalid(OAuthUser?)

  /// The request log's `identity`: the user's login, `server` or `anonymous`.
  var logName: String {
    switch self {
    case .anonymous: "anonymous"
    case .server: "server"
    case .reader(let record), .expired(let record): record.user.login
    case .invalid(let user): user?.login ?? "anonymous"
    }
  }

  /// Whether GitHub refuses the credential (401 on the API).
  var isRefused: Bool {
    switch self {
    case .expired, .invalid: true
    default: false
    }
  }

  /// The kind of app a user token was issued to; nil for anything but a user token.
  var tokenKind: DoubleAppKind? {
    switch self {
    case .reader(let record), .expired(let record): record.kind
    default: nil
    }
  }

  /// The user whose own rate-limit windows are spent; nil for the shared windows.
  var userID: Int? {
    if case .reader(let record) = self { return record.user.id }
    return nil
  }
}

extension GitHubDouble {
  /// The prefixes of the user tokens the double issues (GitHub's for OAuth app and GitHub App user tokens).
  static let userTokenPrefixes = ["gho_", "ghu_"]

  /// Whom `request` is made as; a refresh is made as the owner of the refresh token it presents.
  func identify(_ request: HTTPRequest, route: Route? = nil) -> DoubleIdentity {
    let now = time.wallSeconds()
    if route == .refreshToken {
      guard let presented = Self.formValue("refresh_token", request) else { return .anonymous }
      return oauth.withLock { state in
        if let record = state.refreshTokenRecord(presented) {
          switch state.status(record.accessToken, now: now) {
          case .live(let token): return .reader(token)
          case .expired(let token): return .expired(token)
          default: break
          }
        }
        return state.refreshTokenUser(presented).map { .invalid($0) } ?? .anonymous
      }
    }
    guard let value = request.headers["Authorization"] else { return .anonymous }
    if value.hasPrefix("Basic ") { return .server }
    guard let token = Self.token(of: request), Self.userTokenPrefixes.contains(where: token.hasPrefix) else {
      return .server
    }
    return oauth.withLock { state in
      switch state.status(token, now: now) {
      case .live(let record): .reader(record)
      case .expired(let record): .expired(record)
      case .revoked(let user): .invalid(user)
      case .unknown: .invalid(nil)
      }
    }
  }

  /// The user a login names: a catalog user (its id and private repositories), or anyone else with a
  /// stable id derived from the login; nil for an organisation or a login outside GitHub's rules.
  func oauthUser(login: String) -> OAuthUser? {
    guard Self.isValidLogin(login) else { return nil }
    if let index = catalog.ownerIndex(login: login) {
      let owner = catalog.owners[index]
      guard !owner.isOrganization else { return nil }
      return OAuthUser(login: owner.login, id: owner.id, ownerIndex: index)
    }
    let id = 100_000_000 + Int(SplitMix64.mix(Self.stableHash(login.lowercased())) % 100_000_000)
    return OAuthUser(login: login, id: id, ownerIndex: nil)
  }

  /// GitHub's login rules: 1–39 letters, digits and single inner hyphens.
  static func isValidLogin(_ login: String) -> Bool {
    let bytes = Array(login.utf8)
    guard (1...39).contains(bytes.count), bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-")
    else { return false }
    var previous: UInt8 = 0
    for byte in bytes {
      let alphanumeric =
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
      guard alphanumeric || (byte == UInt8(ascii: "-") && previous != UInt8(ascii: "-")) else { return false }
      previous = byte
    }
    return true
  }
}
