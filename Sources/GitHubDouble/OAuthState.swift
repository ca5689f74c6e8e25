import Digests
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
  /// The kind of app it was issued to: an OAuth app's `gho_` or a GitHub App's `ghu_` token.
  var kind: DoubleAppKind = .oauthApp
  /// Token-clock seconds from which it is refused; nil for a token that does not expire.
  var expires: Double? = nil
  /// The refresh token issued with it, if any: revoking or rotating the one ends the other.
  var refreshToken: String? = nil

  /// Whether it is past its expiry on the token clock at `now`.
  func isExpired(at now: Double) -> Bool { expires.map { now >= $0 } ?? false }
}

/// One refresh token the double issued with an expiring GitHub App token: single use.
struct RefreshTokenRecord: Sendable, Equatable {
  /// The access token it was issued with (rotated away together).
  var accessToken: String
  var clientID: String
  var user: OAuthUser
  /// Token-clock seconds from which it is refused.
  var expires: Double
}

/// What the double knows about an access token at a moment of the token clock.
enum TokenStatus: Equatable {
  /// Issued, not revoked or rotated, not expired.
  case live(OAuthTokenRecord)
  /// Issued and never revoked, but past its expiry: GitHub answers 401 until it is refreshed.
  case expired(OAuthTokenRecord)
  /// Revoked or rotated away (whose it was).
  case revoked(OAuthUser)
  /// Never issued here.
  case unknown
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

/// Lifetimes, in seconds, of an expiring GitHub App user token and its refresh token.
struct TokenLifetimes: Sendable, Equatable {
  var access: Int
  var refresh: Int
}

/// A token just issued, with its refresh token when the app's tokens expire.
struct IssuedToken: Sendable {
  var token: String
  var record: OAuthTokenRecord
  var refreshToken: String?
  var lifetimes: TokenLifetimes?
}

/// Why a code exchange or a refresh failed, as GitHub's `error` codes.
enum OAuthFlowError: String, Error, Equatable {
  case incorrectClientCredentials = "incorrect_client_credentials"
  case redirectURIMismatch = "redirect_uri_mismatch"
  case badVerificationCode = "bad_verification_code"
  /// RFC 6749's code for a grant that fails its PKCE check (GitHub documents no code of its own).
  case invalidGrant = "invalid_grant"
  /// A refresh token that is unknown, already used, expired, revoked or another app's.
  case badRefreshToken = "bad_refresh_token"
  /// A `grant_type` other than `authorization_code` and `refresh_token` (RFC 6749's code).
  case unsupportedGrantType = "unsupported_grant_type"

  /// GitHub's `error_description` (RFC 6749's for PKCE).
  var description: String {
    switch self {
    case .incorrectClientCredentials: return "The client_id and/or client_secret passed are incorrect."
    case .redirectURIMismatch:
      return "The redirect_uri MUST match the registered callback URL for this application."
    case .badVerificationCode: return "The code passed is incorrect or expired."
    case .invalidGrant:
      return "The code_verifier does not match the code_challenge supplied in the authorization request."
    case .badRefreshToken: return "The refresh token passed is incorrect or expired."
    case .unsupportedGrantType:
      return "The authorization grant type is not supported by the authorization server."
    }
  }

  /// GitHub's `error_uri`.
  var uri: String {
    switch self {
    case .redirectURIMismatch:
      return
        "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-authorization-request-errors/#redirect-uri-mismatch2"
    case .badRefreshToken:
      // What github.com sends for this error: the anchor of the code error, not one of its own.
      return
        "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#bad-verification-code"
    default:
      return
        "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#"
        + rawValue.replacing("_", with: "-")
    }
  }
}

/// The OAuth side of the double: codes, tokens, refresh tokens and what each user granted each app.
/// A pure value; time comes in as arguments, randomness from the generator passed in. Tokens expire
/// on the token clock: the wall clock plus `tokenClockOffset`, which tests move forward (codes keep
/// to the wall clock).
struct OAuthState {
  /// GitHub keeps 10 tokens per user, app and scope set; an eleventh revokes the oldest.
  static let maxTokensPerUser = 10
  /// Codes kept at most (older ones are dropped, as if expired), so a flood of authorizations is bounded.
  static let maxCodes = 10_000

  private(set) var codes: [String: OAuthCode] = [:]
  /// Issued tokens not revoked or rotated away (expired ones included, until they are).
  private(set) var tokens: [String: OAuthTokenRecord] = [:]
  /// Refresh tokens not used, revoked or expired-and-seen.
  private(set) var refreshTokens: [String: RefreshTokenRecord] = [:]
  /// Revoked tokens and whose they were, so a request with one is logged under its user.
  private(set) var revoked: [String: OAuthUser] = [:]
  /// Used or revoked refresh tokens and whose they were, so a replay is logged under its user.
  private(set) var spentRefreshTokens: [String: OAuthUser] = [:]
  /// Seconds the token clock is ahead of the wall clock.
  private(set) var tokenClockOffset: Double = 0
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
  /// check fails, so a stolen code cannot be tried twice. A GitHub App's token (`lifetimes` given)
  /// comes with a refresh token; an OAuth app's carries the scopes granted and does not expire.
  mutating func exchange(
    clientID: String, secretMatches: Bool, code: String, redirectURI: String?, verifier: String?, now: Double,
    lifetime: Double, kind: DoubleAppKind = .oauthApp, lifetimes: TokenLifetimes? = nil,
    random: inout some RandomNumberGenerator
  ) -> Result<IssuedToken, OAuthFlowError> {
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
    var scopes: [String] = []
    if kind == .oauthApp {
      let key = "\(clientID)|\(found.user.id)"
      grants[key, default: []].formUnion(found.scopes)
      scopes = (grants[key] ?? []).sorted()
    }
    return .success(
      issue(
        clientID: clientID, user: found.user, scopes: scopes, kind: kind, lifetimes: lifetimes, now: now,
        random: &random))
  }

  /// Uses a refresh token (once): the old refresh token and its access token stop working at once,
  /// and a new pair is issued with fresh lifetimes. Anything but a live refresh token of this client
  /// is `bad_refresh_token`.
  mutating func refresh(
    clientID: String, secretMatches: Bool, refreshToken: String, now: Double, lifetimes: TokenLifetimes,
    random: inout some RandomNumberGenerator
  ) -> Result<IssuedToken, OAuthFlowError> {
    guard secretMatches else { return .failure(.incorrectClientCredentials) }
    guard let found = refreshTokens[refreshToken], found.clientID == clientID else {
      return .failure(.badRefreshToken)
    }
    let tokenNow = now + tokenClockOffset
    guard tokenNow < found.expires else {
      revoke(found.accessToken)
      return .failure(.badRefreshToken)
    }
    let old = tokens[found.accessToken]
    revoke(found.accessToken)
    return .success(
      issue(
        clientID: clientID, user: found.user, scopes: old?.scopes ?? [], kind: old?.kind ?? .githubApp,
        lifetimes: lifetimes, now: now, random: &random))
  }

  /// A new token (and refresh token, with `lifetimes`) for `user`; the user's eleventh token of the
  /// app revokes their oldest.
  private mutating func issue(
    clientID: String, user: OAuthUser, scopes: [String], kind: DoubleAppKind, lifetimes: TokenLifetimes?,
    now: Double, random: inout some RandomNumberGenerator
  ) -> IssuedToken {
    let mine = tokens.filter { $0.value.clientID == clientID && $0.value.user.id == user.id }
    if mine.count >= Self.maxTokensPerUser, let oldest = mine.min(by: { $0.value.serial < $1.value.serial }) {
      revoke(oldest.key)
    }
    serial += 1
    let token = kind.tokenPrefix + Self.randomText(count: 36, alphabet: Self.alphanumerics, &random)
    var record = OAuthTokenRecord(clientID: clientID, user: user, scopes: scopes, serial: serial, kind: kind)
    var refresh: String?
    if let lifetimes {
      let tokenNow = now + tokenClockOffset
      record.expires = tokenNow + Double(lifetimes.access)
      let made = "ghr_" + Self.randomText(count: 76, alphabet: Self.alphanumerics, &random)
      refreshTokens[made] = RefreshTokenRecord(
        accessToken: token, clientID: clientID, user: user, expires: tokenNow + Double(lifetimes.refresh))
      record.refreshToken = made
      refresh = made
    }
    tokens[token] = record
    return IssuedToken(token: token, record: record, refreshToken: refresh, lifetimes: lifetimes)
  }

  /// The live token's record, or nil (also for an expired token).
  func record(_ token: String, now: Double) -> OAuthTokenRecord? {
    if case .live(let record) = status(token, now: now) { return record }
    return nil
  }

  /// What `token` is at `now` (wall clock; the offset is added here).
  func status(_ token: String, now: Double) -> TokenStatus {
    if let record = tokens[token] {
      return record.isExpired(at: now + tokenClockOffset) ? .expired(record) : .live(record)
    }
    if let user = revoked[token] { return .revoked(user) }
    return .unknown
  }

  /// The refresh token's record while it can still be presented (possibly expired); nil once spent.
  func refreshTokenRecord(_ token: String) -> RefreshTokenRecord? { refreshTokens[token] }

  /// Whose refresh token this is, live or spent; nil for one never issued.
  func refreshTokenUser(_ token: String) -> OAuthUser? {
    refreshTokens[token]?.user ?? spentRefreshTokens[token]
  }

  /// The record of an issued token, expired or not, whatever the clock: what revocation may end.
  func issued(_ token: String) -> OAuthTokenRecord? { tokens[token] }

  /// Revokes one token (and the refresh token issued with it); false when it was not issued or is
  /// already revoked.
  @discardableResult
  mutating func revoke(_ token: String) -> Bool {
    guard let record = tokens.removeValue(forKey: token) else { return false }
    revoked[token] = record.user
    if let refresh = record.refreshToken, refreshTokens.removeValue(forKey: refresh) != nil {
      spentRefreshTokens[refresh] = record.user
    }
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

  /// Tokens of `login` that still give access at `now`: not revoked, and either unexpired or
  /// renewable with a refresh token that is itself unexpired.
  func liveTokens(login: String, now: Double) -> Int {
    let lowered = login.lowercased()
    let tokenNow = now + tokenClockOffset
    return tokens.values.filter { record in
      guard record.user.login.lowercased() == lowered else { return false }
      if !record.isExpired(at: tokenNow) { return true }
      guard let refresh = record.refreshToken, let live = refreshTokens[refresh] else { return false }
      return tokenNow < live.expires
    }.count
  }

  /// Makes every outstanding code too old to exchange.
  mutating func expireCodes() { codes.removeAll() }

  /// Moves the token clock `seconds` forward (never back); the new offset.
  mutating func advanceTokenClock(by seconds: Double) -> Double {
    if seconds.isFinite, seconds > 0 { tokenClockOffset += seconds }
    return tokenClockOffset
  }

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
