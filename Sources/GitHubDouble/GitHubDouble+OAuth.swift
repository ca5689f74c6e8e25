import Clocks
import Digests
import Encodings
import HTTP
import HTTPServer
import Synchronization

#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// GitHub's OAuth web application flow, as documented: the authorize page (a form here, so a test
/// or a reader can sign in as any login), the code exchange with GitHub's error JSON, `GET /user`
/// and token revocation; for a GitHub App, expiring `ghu_` tokens and the refresh that rotates them. Codes and tokens come from the system's CSPRNG, not the seeded generator:
/// they are bearer secrets the product must never leak, so tests that grep for them need values
/// nobody can predict, and two doubles with the same seed must not hand out the same tokens.
extension GitHubDouble {
  static let oauthDocs = "https://docs.github.com/apps/oauth-apps/building-oauth-apps/authorizing-oauth-apps"
  static let revokeDocs = "https://docs.github.com/rest/apps/oauth-applications#delete-an-app-token"

  /// `GET` and `POST /login/oauth/authorize`: the consent form, then the redirect back with a code
  /// (Authorize) or `error=access_denied` (Cancel).
  func authorize(_ request: HTTPRequest) -> HTTPResponse {
    let items = request.method == .post ? Self.formItems(request) : request.queryItems
    func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
    guard let clientID = value("client_id"), configuration.oauthClients[clientID] != nil else {
      return Self.page(.notFound, title: "Not Found", body: "<p>No OAuth application has this client id.</p>")
    }
    let registered = configuration.oauthCallbacks[clientID]
    guard let redirect = value("redirect_uri") ?? registered, Self.isHTTPURL(redirect) else {
      return Self.page(
        .badRequest, title: "Bad redirect_uri", body: "<p>redirect_uri must be an http(s) URL.</p>")
    }
    let state = value("state")
    if let registered, !Self.isWithin(redirect, registered) {
      return Self.redirect(
        registered, error: "redirect_uri_mismatch",
        description: "The redirect_uri MUST match the registered callback URL for this application.",
        state: state)
    }
    let challenge = value("code_challenge")
    let method = value("code_challenge_method")
    if challenge != nil || method != nil {
      guard method == "S256", let challenge, challenge.utf8.count == 43, URLEncoding.isUnreserved(challenge)
      else {
        return Self.redirect(
          redirect, error: "invalid_request",
          description: "code_challenge_method must be S256, with a 43-character code_challenge.", state: state
        )
      }
    }
    guard request.method == .post else { return consentForm(items, clientID: clientID, error: nil) }
    switch value("action") {
    case "cancel":
      return Self.redirect(
        redirect, error: "access_denied", description: "The user has denied your application access.",
        state: state)
    case "authorize":
      let login = String((value("login") ?? "").trimmingWhitespace)
      guard let user = oauthUser(login: login) else {
        return consentForm(
          items, clientID: clientID, error: "Type the login of a GitHub user (not an organisation).")
      }
      let asked = ["on", "1", "true", "yes"].contains(value("private") ?? "")
      // A GitHub App asks for permissions, not scopes: its tokens carry none.
      let scopes = asked && configuration.appKind(clientID) == .oauthApp ? ["repo"] : []
      let now = time.wallSeconds()
      let code = oauth.withLock { state in
        var random = SystemRandomNumberGenerator()
        return state.issueCode(
          clientID: clientID, redirectURI: redirect, challenge: challenge, user: user, scopes: scopes,
          now: now,
          random: &random)
      }
      var query: [(String, String)] = [("code", code)]
      if let state { query.append(("state", state)) }
      return Self.found(redirect, query)
    default:
      return Self.page(.badRequest, title: "Bad request", body: "<p>action must be authorize or cancel.</p>")
    }
  }

  /// The internal header an answer of the token endpoint carries its OAuth `error` in, for the
  /// request log; `serve` removes it before the answer leaves.
  static let flowErrorHeader = "X-Double-Flow-Error"

  /// `POST /login/oauth/access_token`: a code for a token, or a refresh token for a new pair
  /// (`grant_type=refresh_token`), or GitHub's error; all with status 200. JSON when the request
  /// accepts it, else GitHub's form encoding. A GitHub App's token comes with `expires_in`,
  /// `refresh_token` and `refresh_token_expires_in`, and an empty `scope`.
  func accessToken(_ request: HTTPRequest) -> HTTPResponse {
    let items = Self.formItems(request) + request.queryItems
    func value(_ name: String) -> String? { items.first { $0.name == name }?.value }
    let clientID = value("client_id") ?? ""
    let secret = Array((value("client_secret") ?? "").utf8)
    let secretMatches =
      configuration.oauthClients[clientID].map { constantTimeEquals(Array($0.utf8), secret) } ?? false
    let now = time.wallSeconds()
    let kind = configuration.appKind(clientID)
    let lifetimes = kind == .githubApp ? tokenLifetimes : nil
    let result = oauth.withLock { state -> Result<IssuedToken, OAuthFlowError> in
      var random = SystemRandomNumberGenerator()
      switch value("grant_type") {
      case nil, "authorization_code":
        return state.exchange(
          clientID: clientID, secretMatches: secretMatches, code: value("code") ?? "",
          redirectURI: value("redirect_uri"), verifier: value("code_verifier"), now: now,
          lifetime: Double(configuration.oauthCodeLifetime), kind: kind, lifetimes: lifetimes, random: &random
        )
      case "refresh_token":
        return state.refresh(
          clientID: clientID, secretMatches: secretMatches, refreshToken: value("refresh_token") ?? "",
          now: now, lifetimes: lifetimes ?? tokenLifetimes, random: &random)
      default:
        return .failure(secretMatches ? .unsupportedGrantType : .incorrectClientCredentials)
      }
    }
    var fields: [(StaticString, FlowValue)]
    var headers: HTTPHeaders = ["Cache-Control": "no-store"]
    switch result {
    case .success(let issued):
      fields = [("access_token", .text(issued.token))]
      if let refresh = issued.refreshToken, let lifetimes = issued.lifetimes {
        fields += [
          ("expires_in", .number(lifetimes.access)), ("refresh_token", .text(refresh)),
          ("refresh_token_expires_in", .number(lifetimes.refresh)),
        ]
      }
      fields += [
        ("token_type", .text("bearer")), ("scope", .text(issued.record.scopes.joined(separator: ","))),
      ]
    case .failure(let error):
      fields = [
        ("error", .text(error.rawValue)), ("error_description", .text(error.description)),
        ("error_uri", .text(error.uri)),
      ]
      headers.add(name: Self.flowErrorHeader, value: error.rawValue)
    }
    guard request.headers["Accept"]?.contains("application/json") == true else {
      headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded; charset=utf-8")
      let form = URLEncoding.formatQuery(fields.map { ("\($0.0)", $0.1.text) })
      return HTTPResponse(status: .ok, headers: headers, body: .bytes(Array(form.utf8)))
    }
    var w = JSONWriter()
    w.objectStart()
    for (name, field) in fields {
      switch field {
      case .text(let text): w.field(name, text)
      case .number(let number): w.field(name, number)
      }
    }
    w.objectEnd()
    return GitHubResponses.json(.ok, w.bytes, extra: headers)
  }

  /// A field of the token endpoint's answer: JSON numbers for the lifetimes, strings for the rest.
  private enum FlowValue {
    case text(String)
    case number(Int)

    /// The form-encoded value.
    var text: String {
      switch self {
      case .text(let text): text
      case .number(let number): String(number)
      }
    }
  }

  /// The configured lifetimes of a GitHub App's tokens.
  var tokenLifetimes: TokenLifetimes {
    TokenLifetimes(
      access: max(1, configuration.appTokenLifetime), refresh: max(1, configuration.refreshTokenLifetime))
  }

  /// A field of a form body, or of the query.
  static func formValue(_ name: String, _ request: HTTPRequest) -> String? {
    (formItems(request) + request.queryItems).first { $0.name == name }?.value
  }

  /// `GET /user`: the signed-in user behind a token the double issued; 401 otherwise.
  func authenticatedUser(
    _ request: HTTPRequest, _ context: RequestContext, _ identity: DoubleIdentity, base: String
  ) -> HTTPResponse {
    let docs = "https://docs.github.com/rest/users/users#get-the-authenticated-user"
    guard case .reader(let record) = identity else {
      let message = identity == .anonymous ? "Requires authentication" : "Bad credentials"
      return GitHubResponses.error(.unauthorized, message: message, documentation: docs)
    }
    let (rate, limited) = take(.core, context, request)
    if let limited { return limited }
    let user = record.user
    var w = JSONWriter()
    w.objectStart()
    w.field("login", user.login)
    w.field("id", user.id)
    w.field("node_id", Base64.encode(Array("04:User\(user.id)".utf8)))
    w.field("avatar_url", "\(base)/u/\(user.id)?v=4")
    w.field("gravatar_id", "")
    w.field("url", "\(base)/users/\(user.login)")
    w.field("html_url", "\(configuration.htmlBaseURL)/\(user.login)")
    w.field("type", "User")
    w.field("site_admin", false)
    w.field("name", user.login)
    w.objectEnd()
    var headers = rate
    headers.add(name: "X-Accepted-OAuth-Scopes", value: "")
    headers.add(name: "Cache-Control", value: "private, max-age=60, s-maxage=60")
    return GitHubResponses.json(.ok, w.bytes, extra: headers)
  }

  /// `DELETE /applications/{client_id}/token` with Basic client credentials and `{"access_token": …}`:
  /// 204, 401 without credentials, 404 for wrong credentials or an unknown token, 422 without a token.
  func revokeToken(clientID: String, _ request: HTTPRequest) -> HTTPResponse {
    guard let given = request.headers["Authorization"] else {
      return GitHubResponses.error(
        .unauthorized, message: "Requires authentication", documentation: Self.revokeDocs)
    }
    let expected = configuration.oauthClients[clientID].map {
      "Basic " + Base64.encode(Array("\(clientID):\($0)".utf8))
    }
    guard let expected, constantTimeEquals(Array(given.utf8), Array(expected.utf8)) else {
      return GitHubResponses.error(.notFound, message: "Not Found", documentation: Self.revokeDocs)
    }
    struct Body: Decodable {
      // GitHub's field name.
      // swift-format-ignore: AlwaysUseLowerCamelCase
      var access_token: String?
    }
    guard let token = (try? JSONDecoder().decode(Body.self, from: Data(request.body)))?.access_token else {
      return GitHubResponses.validationFailed(code: "missing_field", message: "access_token is required")
    }
    // An expired token can still be revoked (with the refresh token issued with it).
    let revoked = oauth.withLock { state -> Bool in
      guard state.issued(token)?.clientID == clientID else { return false }
      return state.revoke(token)
    }
    guard revoked else {
      return GitHubResponses.error(.notFound, message: "Not Found", documentation: Self.revokeDocs)
    }
    return HTTPResponse(status: .noContent, headers: GitHubResponses.apiHeaders())
  }

  // MARK: Control

  /// Revokes every token of `login` (as when the user revokes the app on GitHub); how many were live.
  @discardableResult
  public func revokeTokens(login: String) -> Int { oauth.withLock { $0.revokeAll(login: login) } }

  /// Tokens of `login` that still give access (live, or expired with a live refresh token), for
  /// tests that check sign-out or expiry revoked the reader's token.
  public func liveTokenCount(login: String) -> Int {
    let now = time.wallSeconds()
    return oauth.withLock { $0.liveTokens(login: login, now: now) }
  }

  /// Makes every outstanding authorization code expired (a live double's stand-in for the clock).
  public func expireAuthorizationCodes() { oauth.withLock { $0.expireCodes() } }

  /// Moves the clock tokens and refresh tokens expire by `seconds` forward (8 hours on, a GitHub
  /// App's tokens need refreshing); codes and rate limits keep to the wall clock. The total offset.
  @discardableResult
  public func advanceTokenClock(by seconds: Double) -> Double {
    oauth.withLock { $0.advanceTokenClock(by: seconds) }
  }

  /// Signs `login` in without the browser steps (authorize, then exchange) and returns the token;
  /// nil for a login that cannot sign in or an unknown client.
  public func signIn(
    login: String, seesPrivate: Bool, clientID: String = DoubleConfiguration.demoClientID
  ) -> String? {
    grant(login: login, seesPrivate: seesPrivate, clientID: clientID)?.accessToken
  }

  /// Signs `login` in without the browser steps and returns what the exchange gave: the token and,
  /// for a GitHub App, its refresh token and lifetimes; nil for a login that cannot sign in or an
  /// unknown client.
  public func grant(
    login: String, seesPrivate: Bool = false, clientID: String = DoubleConfiguration.demoAppClientID
  ) -> DoubleGrant? {
    guard configuration.oauthClients[clientID] != nil, let user = oauthUser(login: login) else { return nil }
    let now = time.wallSeconds()
    let lifetime = Double(configuration.oauthCodeLifetime)
    let kind = configuration.appKind(clientID)
    let lifetimes = kind == .githubApp ? tokenLifetimes : nil
    let scopes = seesPrivate && kind == .oauthApp ? ["repo"] : []
    return oauth.withLock { state -> DoubleGrant? in
      var random = SystemRandomNumberGenerator()
      let code = state.issueCode(
        clientID: clientID, redirectURI: "http://127.0.0.1/", challenge: nil, user: user, scopes: scopes,
        now: now, random: &random)
      let issued = state.exchange(
        clientID: clientID, secretMatches: true, code: code, redirectURI: nil, verifier: nil, now: now,
        lifetime: lifetime, kind: kind, lifetimes: lifetimes, random: &random)
      return (try? issued.get()).map {
        DoubleGrant(
          accessToken: $0.token, refreshToken: $0.refreshToken, expiresIn: $0.lifetimes?.access,
          refreshTokenExpiresIn: $0.lifetimes?.refresh)
      }
    }
  }

  /// `POST /_double/oauth/revoke?login=…`, `POST /_double/oauth/expire-codes`,
  /// `POST /_double/oauth/advance?seconds=N`, `GET /_double/oauth/tokens?login=…`.
  func oauthControl(_ request: HTTPRequest, _ action: String) -> HTTPResponse {
    if action == "expire-codes" {
      expireAuthorizationCodes()
      return controlJSON(Array("{\"ok\":true}".utf8))
    }
    if action == "advance" {
      guard let text = request.queryValue("seconds"), let seconds = Int(text),
        (0...400_000_000).contains(seconds)
      else { return HTTPResponse.text(.badRequest, "seconds must be an integer in 0...400000000") }
      var w = JSONWriter()
      w.objectStart()
      w.field("token_clock_offset", Int(advanceTokenClock(by: Double(seconds))))
      w.objectEnd()
      return controlJSON(w.bytes)
    }
    guard let login = request.queryValue("login"), !login.isEmpty else {
      return HTTPResponse.text(.badRequest, "login is required")
    }
    var w = JSONWriter()
    w.objectStart()
    w.field("login", login)
    if action == "revoke" {
      w.field("revoked", revokeTokens(login: login))
    } else {
      w.field("live", liveTokenCount(login: login))
    }
    w.objectEnd()
    return controlJSON(w.bytes)
  }

  // MARK: Helpers

  /// The consent form: the login field (a catalog user who owns private repositories by default),
  /// the `private` checkbox, and Authorize and Cancel, posting back here with the request's fields.
  private func consentForm(_ items: [(name: String, value: String)], clientID: String, error: String?)
    -> HTTPResponse
  {
    let owners = catalog.privateRepositories.map { catalog.owners[$0.ownerIndex] }.filter {
      !$0.isOrganization
    }
    .map(\.login)
    var seen = Set<String>()
    let privateOwners = owners.filter { seen.insert($0).inserted }
    var hidden = ""
    for name in ["client_id", "redirect_uri", "state", "code_challenge", "code_challenge_method", "scope"] {
      guard let value = items.first(where: { $0.name == name })?.value else { continue }
      hidden += "<input type=\"hidden\" name=\"\(name)\" value=\"\(Self.escapeHTML(value))\">\n"
    }
    let login = items.first { $0.name == "login" }?.value ?? privateOwners.first ?? ""
    let hint =
      privateOwners.isEmpty
      ? ""
      : "<p>Users with private repositories here: "
        + privateOwners.map { "<code>\($0)</code>" }.joined(separator: ", ") + ".</p>" + installationHint
    let scopeChoice =
      configuration.appKind(clientID) == .oauthApp
      ? """
      <p><input type="checkbox" id="private" name="private" value="on">
      <label for="private">Also grant <code>repo</code>: my private repositories appear in my searches</label></p>
      """
      : "<p>A GitHub App: its tokens carry no scopes and expire after 8 hours; it refreshes them.</p>"
    let body = """
      <p>The GitHub double signs you in to <strong>\(Self.escapeHTML(clientID))</strong> as any GitHub login.</p>
      \(hint)
      \(error.map { "<p role=\"alert\">\(Self.escapeHTML($0))</p>" } ?? "")
      <form method="post" action="/login/oauth/authorize">
      \(hidden)<p><label for="login">Login</label>
      <input id="login" name="login" value="\(Self.escapeHTML(login))" required autocomplete="username" maxlength="39"></p>
      \(scopeChoice)
      <p><button type="submit" name="action" value="authorize">Authorize</button>
      <button type="submit" name="action" value="cancel" formnovalidate>Cancel</button></p>
      </form>
      """
    return Self.page(error == nil ? .ok : .unprocessableContent, title: "Authorize application", body: body)
  }

  private static func page(_ status: HTTPStatus, title: String, body: String) -> HTTPResponse {
    let html = """
      <!doctype html>
      <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
      <title>\(escapeHTML(title)) · GitHub double</title></head>
      <body><main><h1>\(escapeHTML(title))</h1>
      \(body)
      </main></body></html>

      """
    return HTTPResponse(
      status: status,
      headers: [
        "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "X-Frame-Options": "deny",
        "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
        "Referrer-Policy": "no-referrer",
      ],
      body: .bytes(Array(html.utf8)))
  }

  /// 302 to `uri` with `error`, `error_description`, `error_uri` and `state`, as GitHub redirects errors.
  private static func redirect(_ uri: String, error: String, description: String, state: String?)
    -> HTTPResponse
  {
    var query = [("error", error), ("error_description", description), ("error_uri", oauthDocs)]
    if let state { query.append(("state", state)) }
    return found(uri, query)
  }

  private static func found(_ uri: String, _ query: [(String, String)]) -> HTTPResponse {
    let location = uri + (uri.contains("?") ? "&" : "?") + URLEncoding.formatQuery(query)
    return HTTPResponse(
      status: .found, headers: ["Location": location, "Cache-Control": "no-store"])
  }

  /// The fields of a form body (`application/x-www-form-urlencoded`).
  static func formItems(_ request: HTTPRequest) -> [(name: String, value: String)] {
    guard !request.body.isEmpty else { return [] }
    return URLEncoding.parseQuery(String(decoding: request.body, as: UTF8.self))
  }

  private static func isHTTPURL(_ text: String) -> Bool {
    (text.hasPrefix("http://") || text.hasPrefix("https://")) && text.utf8.count <= 2048
      && !text.utf8.contains { $0 < 0x21 || $0 == 0x7F }
  }

  /// GitHub's rule: the same scheme, host and port, and the registered path or one below it.
  private static func isWithin(_ redirect: String, _ registered: String) -> Bool {
    var base = registered
    while base.hasSuffix("/") { base.removeLast() }
    let path = redirect.split(separator: "?", maxSplits: 1).first.map(String.init) ?? redirect
    return path == base || path.hasPrefix(base + "/")
  }

  static func escapeHTML(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&#39;"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}
