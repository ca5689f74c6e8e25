import HTTP
import HTTPServer

/// What each token may see: the installed organisation's private repositories for its members (a
/// GitHub App user token, or an OAuth token with `repo`), a user's own private repositories for their
/// `repo` token, and the server's token as `DoubleConfiguration.serverTokenAccess` says.
extension GitHubDouble {
  /// Whose private repositories a request made as `identity` may see.
  func viewer(of identity: DoubleIdentity) -> DoubleViewer {
    switch identity {
    case .reader(let record):
      let member = catalog.isInstallationMember(record.user.login)
      switch record.kind {
      // The App is installed on the organisation only: its user tokens see what the installation
      // covers, as far as the user may.
      case .githubApp: return DoubleViewer(owner: nil, installation: member)
      case .oauthApp:
        guard record.scopes.contains("repo") else { return .everyone }
        return DoubleViewer(owner: record.user.ownerIndex, installation: member)
      }
    case .server:
      return DoubleViewer(owner: nil, installation: configuration.serverTokenAccess.seesInstallation)
    case .anonymous, .expired, .invalid:
      return .everyone
    }
  }

  /// The consent form's line about the installed organisation: who its members are (they see its
  /// private repositories with the GitHub App, or with `repo`).
  var installationHint: String {
    guard let org = catalog.installedOrganisation, !configuration.installation.members.isEmpty else {
      return ""
    }
    let members = configuration.installation.members.map { "<code>\(Self.escapeHTML($0))</code>" }
    return "<p>The GitHub App is installed on <code>\(Self.escapeHTML(org.login))</code>: its members "
      + members.joined(separator: ", ") + " see its private <code>vault-…</code> repositories.</p>"
  }

  /// `GET /user` with the server's token: the operator's account, with the server token's scopes
  /// header (none for a fine-grained token), so a server can check what its token may see.
  func serverUser(_ request: HTTPRequest, _ context: RequestContext, base: String) -> HTTPResponse {
    let (rate, limited) = take(.core, context, request)
    if let limited { return limited }
    let login = "reposcroll-operator"
    let id = 99_000_001
    var w = JSONWriter()
    w.objectStart()
    w.field("login", login)
    w.field("id", id)
    w.field("avatar_url", "\(base)/u/\(id)?v=4")
    w.field("url", "\(base)/users/\(login)")
    w.field("html_url", "\(configuration.htmlBaseURL)/\(login)")
    w.field("type", "User")
    w.field("site_admin", false)
    w.objectEnd()
    var headers = rate
    headers.add(name: "Cache-Control", value: "private, max-age=60, s-maxage=60")
    return GitHubResponses.json(.ok, w.bytes, extra: headers)
  }

  /// `GET /_double/installation`: the installed organisation's login, members and private
  /// repositories (full names and descriptions), for tests that look for them where they must not be.
  func installationJSON() -> HTTPResponse {
    var w = JSONWriter()
    w.objectStart()
    w.field("organisation", catalog.installedOrganisation?.login)
    w.key("members")
    w.arrayStart()
    for member in configuration.installation.members { w.string(member) }
    w.arrayEnd()
    w.field("serverToken", configuration.serverTokenAccess.rawValue)
    w.key("repositories")
    w.arrayStart()
    for repository in catalog.installedRepositories {
      w.objectStart()
      w.field("full_name", catalog.owner(of: repository).login + "/" + repository.name)
      w.field("description", repository.description)
      w.objectEnd()
    }
    w.arrayEnd()
    w.objectEnd()
    return controlJSON(w.bytes)
  }
}
