import HTTP

/// A user the double's OAuth flow signed in: a catalog user (their private repositories included)
/// or anyone else who typed a valid login.
struct OAuthUser: Sendable, Equatable {
  /// The login, spelled as the catalog spells it.
  var login: String
  /// The numeric id: the catalog owner's, or a stable one derived from the login.
  var id: Int
  /// The catalog owner index, if the login is a catalog user.
  var ownerIndex: Int?
}

/// One access token the double issued.
struct OAuthTokenRecord: Sendable, Equatable {
  var clientID: String
  var user: OAuthUser
  var scopes: [String]
  /// Issue order, so the eleventh token of a user and app can revoke the oldest.
  var serial: UInt64
}

/// One authorization code waiting to be exchanged.
struct OAuthCode: Sendable {
  var clientID: String
  var redirectURI: String
  /// The PKCE S256 challenge the authorization carried, if any.
  var challenge: String?
  var user: OAuthUser
  var scopes: [String]
  /// Unix seconds when it was issued.
  var issued: Double
}

/// Why a code exchange failed, as GitHub's `error` codes.
enum OAuthFlowError: String, Error, Equatable {
  case incorrectClientCredentials = "incorrect_client_credentials"
  case redirectURIMismatch = "redirect_uri_mismatch"
  case badVerificationCode = "bad_verification_code"
  /// RFC 6749's code for a grant that fails its PKCE check (GitHub documents no code of its own).
  case invalidGrant = "invalid_grant"

  /// GitHub's `error_description` (RFC 6749's for PKCE).
  var description: String {
    switch self {
    case .incorrectClientCredentials: return "The client_id and/or client_secret passed are incorrect."
    case .redirectURIMismatch:
      return "The redirect_uri MUST match the registered callback URL for this application."
    case .badVerificationCode: return "The code passed is incorrect or expired."
    case .invalidGrant:
      return "The code_verifier does not match the code_challenge supplied in the authorization request."
    }
  }

  /// GitHub's `error_uri`.
  var uri: String {
    switch self {
    case .redirectURIMismatch:
      return
        "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#redirect-uri-mismatch2"
    default:
      return
        "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#"
        + rawValue.replacing("_", with: "-")
    }
  }
}

/// The OAuth side of the double: codes, tokens and what each user granted each app. A pure value;
/// time comes in as arguments, randomness from the generator passed in.
struct OAuthState {
  /// GitHub keeps 10 tokens per user, app and scope set; an eleventh revokes the oldest.
  static let maxTokensPerUser = 10
  /// Codes kept at most (older ones are dropped, as if expired), so a flood of authorizations is bounded.
  static let maxCodes = 10_000

  private(set) var codes: [String: OAuthCode] = [:]
  private(set) var tokens: [String: OAuthTokenRecord] = [:]
  /// Revoked tokens and whose they were, so a request with one is logged under its user.
  private(set) var revoked: [String: OAuthUser] = [:]
  /// Scopes each user granted each app (`clientID|userID`): later tokens get them too, as on GitHub.
  private var grants: [String: Set<String>] = [:]
  private var serial: UInt64 = 0

  /// A new code for an authorization the user approved.
  mutating func issueCode(
    clientID: String, redirectURI: String, challenge: String?, user: OAuthUser, scopes: [String], now: Double,
    random: inout some RandomNumberGenerator
  ) -> String {
    if codes.count >= Self.maxCodes { codes.removeAll(keepingCapacity: true) }
    let code = Self.randomText(count: 20, alphabet: Self.hexDigits, &random)
    codes[code] = OAuthCode(
      clientID: clientID, redirectURI: redirectURI, challenge: challenge, user: user, scopes: scopes,
      issued: now)
    return code
  }

  /// Exchanges a code: checks, in GitHub's order, the client, the code (known, unused, within
  /// `lifetime`), the redirect URI and the PKCE verifier. A code found is used up even when a later
  /// check fails, so a stolen code cannot be tried twice.
  mutating func exchange(
    clientID: String, secretMatches: Bool, code: String, redirectURI: String?, verifier: String?, now: Double,
    lifetime: Double, random: inout some RandomNumberGenerator
  ) -> Result<(token: String, record: OAuthTokenRecord), OAuthFlowError> {
    guard secretMatches else { return .failure(.incorrectClientCredentials) }
    guard let found = codes.removeValue(forKey: code), found.clientID == clientID,
      now - found.issued < lifetime
    else { return .failure(.badVerificationCode) }
    if let redirectURI, redirectURI != found.redirectURI { return .failure(.redirectURIMismatch) }
    if let challenge = found.challenge {
      guard let verifier, PKCEChallenge.isValidVerifier(verifier),
        constantTimeEquals(Array(PKCEChallenge.s256(verifier: verifier).utf8), Array(challenge.utf8))
      else { return .failure(.invalidGrant) }
    }
    let key = "\(clientID)|\(found.user.id)"
    grants[key, default: []].formUnion(found.scopes)
    let scopes = (grants[key] ?? []).sorted()
    let mine = tokens.filter { $0.value.clientID == clientID && $0.value.user.id == found.user.id }
    if mine.count >= Self.maxTokensPerUser, let oldest = mine.min(by: { $0.value.serial < $1.value.serial }) {
      revoke(oldest.key)
    }
    serial += 1
    let token = "gho_" + Self.randomText(count: 36, alphabet: Self.alphanumerics, &random)
    let record = OAuthTokenRecord(clientID: clientID, user: found.user, scopes: scopes, serial: serial)
    tokens[token] = record
    return .success((token, record))
  }

  /// The live token's record, or nil.
  func record(_ token: String) -> OAuthTokenRecord? { tokens[token] }

  /// Revokes one token; false when it was not live.
  @discardableResult
  mutating func revoke(_ token: String) -> Bool {
    guard let record = tokens.removeValue(forKey: token) else { return false }
    revoked[token] = record.user
    return true
  }

  /// Revokes every token of `login` (any app) and forgets the scopes it granted; the count revoked.
  mutating func revokeAll(login: String) -> Int {
    let lowered = login.lowercased()
    let theirs = tokens.filter { $0.value.user.login.lowercased() == lowered }
    for token in theirs.keys { revoke(token) }
    grants = grants.filter { entry in !theirs.values.contains { entry.key.hasSuffix("|\($0.user.id)") } }
    return theirs.count
  }

  /// Live tokens of `login`.
  func liveTokens(login: String) -> Int {
    let lowered = login.lowercased()
    return tokens.values.filter { $0.user.login.lowercased() == lowered }.count
  }

  /// Makes every outstanding code too old to exchange.
  mutating func expireCodes() { codes.removeAll() }

  static let hexDigits = Array("0123456789abcdef".utf8)
  static let alphanumerics = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

  /// `count` characters drawn uniformly from `alphabet` (rejection sampling, no modulo bias).
  static func randomText(count: Int, alphabet: [UInt8], _ random: inout some RandomNumberGenerator) -> String
  {
    var out: [UInt8] = []
    out.reserveCapacity(count)
    // The largest multiple of the alphabet's size that fits a byte: bytes above it are drawn again.
    let limit = 256 - 256 % alphabet.count
    while out.count < count {
      let byte = Int(UInt8.random(in: 0...255, using: &random))
      if byte >= limit { continue }
      out.append(alphabet[byte % alphabet.count])
    }
    return String(decoding: out, as: UTF8.self)
  }
}
