import Encodings
import HTTP

/// Writes catalog records in GitHub's JSON shapes (`repo-search-result-item`, `simple-user`).
/// Hot path: URLs are written as escaped prefix + static suffix, without building Strings.
struct RepositoryJSON {
  /// Base of API URLs, e.g. `http://127.0.0.1:8080`.
  let apiBase: String
  /// Base of `html_url`.
  let htmlBase: String
  private let api: [UInt8]
  private let html: [UInt8]
  private let licenseURLs: [[UInt8]]

  /// Share of repositories written as older API eras did: no `topics`, `license` or `archived`.
  let legacyRate: Double

  init(apiBase: String, htmlBase: String, legacyRate: Double = 0) {
    self.legacyRate = legacyRate
    self.apiBase = apiBase
    self.htmlBase = htmlBase
    api = JSONWriter.escaped(apiBase)
    html = JSONWriter.escaped(htmlBase)
    licenseURLs = CatalogVocabulary.licenses.map { JSONWriter.escaped(apiBase + "/licenses/" + $0.0) }
  }

  func writeOwner(_ o: CatalogOwner, into w: inout JSONWriter) {
    let login = JSONWriter.escaped(o.login)
    let u = api + Array("/users/".utf8) + login
    w.objectStart()
    w.field("login", o.login)
    w.field("id", o.id)
    w.field("node_id", nodeID(o.isOrganization ? "04:Organization" : "04:User", o.id))
    w.joined("avatar_url", api + Array("/u/\(o.id)".utf8), "?v=4")
    w.field("gravatar_id", "")
    w.joined("url", u, "")
    w.joined("html_url", html + [UInt8(ascii: "/")] + login, "")
    w.joined("followers_url", u, "/followers")
    w.joined("following_url", u, "/following{/other_user}")
    w.joined("gists_url", u, "/gists{/gist_id}")
    w.joined("starred_url", u, "/starred{/owner}{/repo}")
    w.joined("subscriptions_url", u, "/subscriptions")
    w.joined("organizations_url", u, "/orgs")
    w.joined("repos_url", u, "/repos")
    w.joined("events_url", u, "/events{/privacy}")
    w.joined("received_events_url", u, "/received_events")
    w.field("type", o.isOrganization ? "Organization" : "User")
    w.field("user_view_type", "public")
    w.field("site_admin", false)
    w.objectEnd()
  }

  func writeRepository(
    _ r: CatalogRepository, owner o: CatalogOwner, score: Double?, stars: Int? = nil, into w: inout JSONWriter
  ) {
    let stars = stars ?? r.stars
    let fullName = o.login + "/" + r.name
    let full = JSONWriter.escaped(fullName)
    let u = api + Array("/repos/".utf8) + full
    let h = html + [UInt8(ascii: "/")] + full
    w.objectStart()
    w.field("id", r.id)
    w.field("node_id", nodeID("010:Repository", r.id))
    w.field("name", r.name)
    w.field("full_name", fullName)
    w.field("private", r.isPrivate)
    w.key("owner")
    writeOwner(o, into: &w)
    w.joined("html_url", h, "")
    w.field("description", r.description)
    w.field("fork", r.fork)
    w.joined("url", u, "")
    w.joined("forks_url", u, "/forks")
    w.joined("keys_url", u, "/keys{/key_id}")
    w.joined("collaborators_url", u, "/collaborators{/collaborator}")
    w.joined("teams_url", u, "/teams")
    w.joined("hooks_url", u, "/hooks")
    w.joined("issue_events_url", u, "/issues/events{/number}")
    w.joined("events_url", u, "/events")
    w.joined("assignees_url", u, "/assignees{/user}")
    w.joined("branches_url", u, "/branches{/branch}")
    w.joined("tags_url", u, "/tags")
    w.joined("blobs_url", u, "/git/blobs{/sha}")
    w.joined("git_tags_url", u, "/git/tags{/sha}")
    w.joined("git_refs_url", u, "/git/refs{/sha}")
    w.joined("trees_url", u, "/git/trees{/sha}")
    w.joined("statuses_url", u, "/statuses/{sha}")
    w.joined("languages_url", u, "/languages")
    w.joined("stargazers_url", u, "/stargazers")
    w.joined("contributors_url", u, "/contributors")
    w.joined("subscribers_url", u, "/subscribers")
    w.joined("subscription_url", u, "/subscription")
    w.joined("commits_url", u, "/commits{/sha}")
    w.joined("git_commits_url", u, "/git/commits{/sha}")
    w.joined("comments_url", u, "/comments{/number}")
    w.joined("issue_comment_url", u, "/issues/comments{/number}")
    w.joined("contents_url", u, "/contents/{+path}")
    w.joined("compare_url", u, "/compare/{base}...{head}")
    w.joined("merges_url", u, "/merges")
    w.joined("archive_url", u, "/{archive_format}{/ref}")
    w.joined("downloads_url", u, "/downloads")
    w.joined("issues_url", u, "/issues{/number}")
    w.joined("pulls_url", u, "/pulls{/number}")
    w.joined("milestones_url", u, "/milestones{/number}")
    w.joined("notifications_url", u, "/notifications{?since,all,participating}")
    w.joined("labels_url", u, "/labels{/name}")
    w.joined("releases_url", u, "/releases{/id}")
    w.joined("deployments_url", u, "/deployments")
    w.date("created_at", r.createdAt)
    w.date("updated_at", r.updatedAt)
    w.date("pushed_at", r.pushedAt)
    w.joined("git_url", Array("git://github.com/".utf8) + full, ".git")
    w.joined("ssh_url", Array("git@github.com:".utf8) + full, ".git")
    w.joined("clone_url", h, ".git")
    w.joined("svn_url", h, "")
    w.field("homepage", r.homepage)
    w.field("size", r.size)
    w.field("stargazers_count", stars)
    w.field("watchers_count", stars)
    w.field("language", r.language)
    w.field("has_issues", true)
    w.field("has_projects", true)
    w.field("has_downloads", true)
    w.field("has_wiki", !r.archived)
    w.field("has_pages", r.hasPages)
    w.field("has_discussions", stars > 1000)
    w.field("forks_count", r.forks)
    w.key("mirror_url")
    w.null()
    // Fixed per repository, so every page and endpoint shows it the same way.
    let legacy =
      legacyRate > 0
      && Double(SplitMix64.mix(UInt64(truncatingIfNeeded: r.id)) >> 11) * 0x1.0p-53 < legacyRate
    if !legacy { w.field("archived", r.archived) }
    w.field("disabled", false)
    w.field("open_issues_count", r.openIssues)
    if !legacy { w.key("license") }
    if legacy {
    } else if let li = r.licenseIndex {
      let l = CatalogVocabulary.licenses[li]
      w.objectStart()
      w.field("key", l.0)
      w.field("name", l.1)
      w.field("spdx_id", l.2)
      if l.0 == "other" {
        w.key("url")
        w.null()
      } else {
        w.joined("url", licenseURLs[li], "")
      }
      w.field("node_id", l.3)
      w.objectEnd()
    } else {
      w.null()
    }
    w.field("allow_forking", true)
    w.field("is_template", r.isTemplate)
    w.field("web_commit_signoff_required", false)
    if !legacy {
      w.key("topics")
      w.arrayStart()
      for t in r.topics { w.string(t) }
      w.arrayEnd()
    }
    w.field("visibility", r.isPrivate ? "private" : "public")
    w.field("forks", r.forks)
    w.field("open_issues", r.openIssues)
    w.field("watchers", stars)
    w.field("default_branch", r.defaultBranch)
    if let score {
      w.key("score")
      w.double(score)
    }
    w.objectEnd()
  }

  /// GitHub's legacy node ids: base64 of e.g. "010:Repository123".
  private func nodeID(_ prefix: String, _ id: Int) -> String {
    Base64.encode(Array((prefix + String(id)).utf8))
  }
}
