import Credentials
import Digests
import Encodings
import GitHub
import HTTP
import HTTPServer
import Sessions

/// Sign in with GitHub (the OAuth web application flow with PKCE) and sign out: `GET /login`,
/// `GET /login/callback`, `POST /logout` and `GET /logout`. Registered only when sign-in is on.
struct SignInHandler: Sendable {
  let signIn: SignIn
  /// The message pages every failure answers with.
  let pages: PageRenderer
  /// Where the OAuth flow's upstream problems are noted (nil: not logged).
  let accessLog: AccessLog?

  /// `GET /login?return_to=PATH`: binds a fresh state and PKCE verifier to this browser in a sealed,
  /// short-lived cookie and sends it to GitHub's authorize page (no scope: public data only).
  func login(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
    let returnTo = ReturnPath.sanitized(request.queryValue("return_to"))
    let ticket = LoginTicket.start(returnTo: returnTo, now: signIn.now())
    let location = signIn.oauth.authorizeURL(
      redirectURI: signIn.redirectURI, state: ticket.state,
      codeChallenge: PKCEChallenge.s256(verifier: ticket.verifier))
    var response = HTTPResponse(status: .found, headers: ["Location": location, "Cache-Control": "no-store"])
    response.headers.add(
      name: "Set-Cookie",
      value: signIn.cookies.setCookie(
        signIn.cookies.login, ticket.sealed(key: signIn.key), maxAge: LoginTicket.lifetime))
    return response
  }

  /// `GET /login/callback?code&state` (or `?error=access_denied&state`): checks the state against the
  /// ticket in constant time, exchanges the code with the verifier, reads the user, and starts a
  /// session under a new id. Every failure is a page with a way back; the ticket is spent either way.
  func callback(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
    let reader = await signIn.reader(for: request)
    var response = await finishSignIn(request, previous: reader)
    response.headers.add(name: "Set-Cookie", value: signIn.cookies.clearCookie(signIn.cookies.login))
    response.replaceOrAddHeader(name: "Cache-Control", value: "no-store")
    // The callback URL holds the code: no page after it may send it on as a Referer.
    response.replaceOrAddHeader(name: "Referrer-Policy", value: "no-referrer")
    return response
  }

  private func finishSignIn(_ request: HTTPRequest, previous: Reader) async -> HTTPResponse {
    guard let cookie = CookiePolicy.value(of: signIn.cookies.login, in: request.headers),
      let ticket = LoginTicket.open(cookie, key: signIn.key, now: signIn.now())
    else {
      return pages.problem(
        .badRequest, "Sign-in could not be completed",
        "This sign-in was not started in this browser, or took longer than 10 minutes.", previous)
    }
    guard let state = request.queryValue("state"), ticket.matches(state: state) else {
      return pages.problem(
        .forbidden, "Sign-in could not be verified",
        "The answer from GitHub did not match the sign-in started here, so it was not used.", previous,
        back: ticket.returnTo)
    }
    if let error = request.queryValue("error") {
      if error == "access_denied" {
        return pages.problem(
          .forbidden, "Sign-in cancelled",
          "You did not authorize RepoScroll on GitHub. You can keep browsing anonymously.",
          previous, back: ticket.returnTo)
      }
      return pages.problem(
        .badGateway, "Sign-in failed", "GitHub could not complete the sign-in.", previous,
        back: ticket.returnTo)
    }
    guard let code = request.queryValue("code"), (1...512).contains(code.utf8.count) else {
      return pages.problem(
        .badRequest, "Sign-in could not be completed", "GitHub’s answer had no sign-in code.", previous,
        back: ticket.returnTo)
    }
    let grant: OAuthGrant
    do throws(OAuthError) {
      grant = try await signIn.oauth.exchange(
        code: code, verifier: ticket.verifier, redirectURI: signIn.redirectURI)
    } catch {
      return oauthProblem(error, previous, back: ticket.returnTo)
    }
    let user: GitHubUser
    do throws(OAuthError) {
      user = try await signIn.oauth.user(token: grant.accessToken)
    } catch {
      // Nobody will use this token: it is revoked rather than left live at GitHub.
      signIn.revokeInBackground(grant.accessToken)
      return oauthProblem(error, previous, back: ticket.returnTo)
    }
    let granted = signIn.now()
    let expiry = grant.expiresIn.map {
      TokenExpiry(
        grantedAt: granted, expiresIn: $0, refreshToken: grant.refreshToken,
        refreshExpiresIn: grant.refreshTokenExpiresIn)
    }
    let session: Session
    do {
      session = try await signIn.book.create(
        reader: ReaderCredential(
          login: user.login, userID: user.id, token: grant.accessToken, access: user.access),
        expiry: expiry)
    } catch {
      signIn.revokeInBackground(grant.accessToken)
      if error == .full {
        signIn.metrics.refusedFull()
        accessLog?.event("sign-in: refused, the session store holds its maximum of sessions")
        var response = pages.problem(
          .serviceUnavailable, "Sign-in is full right now",
          "This site has as many signed-in readers as it can hold. You can keep browsing anonymously "
            + "and try signing in again later.", previous, back: ticket.returnTo)
        response.headers.add(name: "Retry-After", value: "600")
        return response
      }
      return pages.problem(
        .serviceUnavailable, "Sign-in is unavailable right now",
        "Your session could not be stored. You can keep browsing anonymously and try again shortly.",
        previous,
        back: ticket.returnTo)
    }
    // A session the browser had before is ended and its token revoked: the reader now has exactly
    // the new one, and GitHub one live token for it.
    if let old = previous.session, (try? await signIn.book.end(old.id)) == true {
      signIn.revokeInBackground(old.record.reader.token)
    }
    var response = HTTPResponse(status: .seeOther, headers: ["Location": ticket.returnTo])
    response.headers.add(
      name: "Set-Cookie",
      value: signIn.cookies.setCookie(
        signIn.cookies.session, session.id.cookieValue, maxAge: signIn.book.policy.absolute))
    return response
  }

  /// The page for a failed token exchange or user lookup.
  private func oauthProblem(_ error: OAuthError, _ reader: Reader, back: String) -> HTTPResponse {
    switch error {
    case .accessDenied:
      return pages.problem(
        .forbidden, "Sign-in cancelled", "You did not authorize RepoScroll on GitHub.", reader, back: back)
    case .badVerificationCode, .badVerifier, .badRefreshToken:
      return pages.problem(
        .badRequest, "Sign-in expired",
        "This sign-in code has expired or was already used. Please sign in again.",
        reader, back: back)
    case .unavailable(let message):
      accessLog?.event("sign-in: GitHub unavailable: \(message)")
      let slow = message.lowercased().contains("time")
      return pages.problem(
        slow ? .gatewayTimeout : .badGateway, "GitHub is not answering",
        slow
          ? "GitHub took too long to answer. Please try again in a moment."
          : "GitHub could not be reached. Please try again in a moment.", reader, back: back)
    case .incorrectClientCredentials, .redirectURIMismatch:
      accessLog?.event("sign-in: GitHub refused the OAuth app configuration: \(error)")
      return pages.problem(
        .badGateway, "Sign-in is misconfigured",
        "GitHub refused this site’s sign-in settings. Browsing anonymously still works.", reader, back: back)
    case .unauthorized, .hostile:
      accessLog?.event("sign-in: unexpected answer from GitHub: \(error)")
      return pages.problem(
        .badGateway, "Sign-in failed", "GitHub sent an answer that could not be used. Please try again.",
        reader,
        back: back)
    }
  }

  /// `POST /logout` (form field `csrf`): ends the session everywhere, clears the cookie and revokes the
  /// token at GitHub. A cross-site post, or one without this session's token, changes nothing.
  func logout(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
    let reader = await signIn.reader(for: request)
    if !Self.isSameOrigin(request, origin: signIn.publicOrigin.origin) {
      return pages.problem(
        .forbidden, "Sign-out refused", "This sign-out request did not come from this site.", reader)
    }
    let form = URLEncoding.parseQuery(String(decoding: request.body.prefix(8192), as: UTF8.self))
    let back = ReturnPath.sanitized(form.first { $0.name == "return_to" }?.value)
    guard let session = reader.session else {
      if reader.notice == .unavailable {
        return pages.problem(
          .serviceUnavailable, "Sign-out is unavailable right now",
          "Your session could not be reached. Please try again in a moment.", reader, back: back)
      }
      // Nothing to end: already signed out (the cookie, if any, is being cleared).
      var response = HTTPResponse(status: .seeOther, headers: ["Location": back])
      reader.apply(to: &response)
      return response
    }
    guard let presented = form.first(where: { $0.name == "csrf" })?.value, session.acceptsCSRF(presented)
    else {
      return pages.problem(
        .forbidden, "Sign-out refused",
        "This sign-out form has expired. Use the Sign out button on the page again.",
        reader, back: back)
    }
    do {
      try await signIn.book.end(session.id)
    } catch {
      return pages.problem(
        .serviceUnavailable, "Sign-out is unavailable right now",
        "Your session could not be ended. Please try again in a moment.", reader, back: back)
    }
    signIn.revokeInBackground(session.record.reader.token)
    var response = HTTPResponse(
      status: .seeOther, headers: ["Location": back, "Cache-Control": "no-store"])
    response.headers.add(name: "Set-Cookie", value: signIn.cookies.clearCookie(signIn.cookies.session))
    return response
  }

  /// `GET /logout` changes nothing: it says how to sign out.
  func logoutPage(_ request: HTTPRequest, _ context: RequestContext) async -> HTTPResponse {
    let reader = await signIn.reader(for: request)
    var response = pages.problem(
      .methodNotAllowed, "Sign out", "Use the Sign out button at the top of the page to sign out.", reader)
    response.headers.add(name: "Allow", value: "POST")
    return response
  }

  /// Whether a state-changing request comes from this site: `Origin` (when sent) must be the public
  /// origin, compared with default ports left out (`https://host:443` is `https://host`), and
  /// `Sec-Fetch-Site` (when sent) must be `same-origin`.
  static func isSameOrigin(_ request: HTTPRequest, origin: String) -> Bool {
    if let site = request.headers["Sec-Fetch-Site"], site != "same-origin" { return false }
    if let sent = request.headers["Origin"], PublicOrigin.normalized(sent) != origin { return false }
    return true
  }
}
