import HTTP
import Synchronization

/// Whom a request to the double is made as, read from its `Authorization` header.
enum DoubleIdentity: Equatable {
  /// No credential.
  case anonymous
  /// A credential the double did not issue (the server's token, or an app's Basic credentials).
  case server
  /// A live token the double issued to a signed-in user.
  case reader(OAuthTokenRecord)
  /// A `gho_` token that is revoked (whose it was, when known) or was never issued: GitHub answers 401.
  case invalid(OAuthUser?)

  /// The request log's `identity`: the user's login, `server` or `anonymous`.
  var logName: String {
    switch self {
    case .anonymous: "anonymous"
    case .server: "server"
    case .reader(let record): record.user.login
    case .invalid(let user): user?.login ?? "anonymous"
    }
  }

  /// The user whose own rate-limit windows are spent; nil for the shared windows.
  var userID: Int? {
    if case .reader(let record) = self { return record.user.id }
    return nil
  }

  /// The catalog owner whose private repositories the request may see: a catalog user's `repo`-scoped token.
  var viewer: Int? {
    if case .reader(let record) = self, record.scopes.contains("repo") { return record.user.ownerIndex }
    return nil
  }
}

extension GitHubDouble {
  /// The prefix of the tokens the double issues (GitHub's for OAuth app user tokens).
  static let oauthTokenPrefix = "gho_"

  /// Whom `request` is made as.
  func identify(_ request: HTTPRequest) -> DoubleIdentity {
    guard let value = request.headers["Authorization"] else { return .anonymous }
    if value.hasPrefix("Basic ") { return .server }
    guard let token = Self.token(of: request), token.hasPrefix(Self.oauthTokenPrefix) else { return .server }
    return oauth.withLock { state in
      if let record = state.record(token) { return .reader(record) }
      return .invalid(state.revoked[token])
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
