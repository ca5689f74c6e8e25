/// Writes catalog records in GitHub's JSON shapes (`repo-search-result-item`, `simple-user`).
struct RepositoryJSON {
  /// Base of API URLs, e.g. `http://127.0.0.1:8080`.
  let apiBase: String
  /// Base of `html_url`.
  let htmlBase: String

  func writeOwner(_ o: CatalogOwner, into w: inout JSONWriter) {
    let u = apiBase + "/users/" + o.login
    w.objectStart()
    w.field("login", o.login)
    w.field("id", o.id)
    w.field("node_id", nodeID(o.isOrganization ? "04:Organization" : "04:User", o.id))
    w.field("avatar_url", apiBase + "/u/\(o.id)?v=4")
    w.field("gravatar_id", "")
    w.field("url", u)
    w.field("html_url", htmlBase + "/" + o.login)
    w.field("followers_url", u + "/followers")
    w.field("following_url", u + "/following{/other_user}")
    w.field("gists_url", u + "/gists{/gist_id}")
    w.field("starred_url", u + "/starred{/owner}{/repo}")
    w.field("subscriptions_url", u + "/subscriptions")
    w.field("organizations_url", u + "/orgs")
    w.field("repos_url", u + "/repos")
    w.field("events_url", u + "/events{/privacy}")
    w.field("received_events_url", u + "/received_events")
    w.field("type", o.isOrganization ? "Organization" : "User")
    w.field("user_view_type", "public")
    w.field("site_admin", false)
    w.objectEnd()
  }

  func writeRepository(
    _ r: CatalogRepository, owner o: CatalogOwner, score: Double?, into w: inout JSONWriter
  ) {
    let full = o.login + "/" + r.name
    let u = apiBase + "/repos/" + full
    let html = htmlBase + "/" + full
    w.objectStart()
    w.field("id", r.id)
    w.field("node_id", nodeID("010:Repository", r.id))
    w.field("name", r.name)
    w.field("full_name", full)
    w.field("private", false)
    w.key("owner")
    writeOwner(o, into: &w)
    w.field("html_url", html)
    w.field("description", r.description)
    w.field("fork", r.fork)
    w.field("url", u)
    w.field("forks_url", u + "/forks")
    w.field("keys_url", u + "/keys{/key_id}")
    w.field("collaborators_url", u + "/collaborators{/collaborator}")
    w.field("teams_url", u + "/teams")
    w.field("hooks_url", u + "/hooks")
    w.field("issue_events_url", u + "/issues/events{/number}")
    w.field("events_url", u + "/events")
    w.field("assignees_url", u + "/assignees{/user}")
    w.field("branches_url", u + "/branches{/branch}")
    w.field("tags_url", u + "/tags")
    w.field("blobs_url", u + "/git/blobs{/sha}")
    w.field("git_tags_url", u + "/git/tags{/sha}")
    w.field("git_refs_url", u + "/git/refs{/sha}")
    w.field("trees_url", u + "/git/trees{/sha}")
    w.field("statuses_url", u + "/statuses/{sha}")
    w.field("languages_url", u + "/languages")
    w.field("stargazers_url", u + "/stargazers")
    w.field("contributors_url", u + "/contributors")
    w.field("subscribers_url", u + "/subscribers")
    w.field("subscription_url", u + "/subscription")
    w.field("commits_url", u + "/commits{/sha}")
    w.field("git_commits_url", u + "/git/commits{/sha}")
    w.field("comments_url", u + "/comments{/number}")
    w.field("issue_comment_url", u + "/issues/comments{/number}")
    w.field("contents_url", u + "/contents/{+path}")
    w.field("compare_url", u + "/compare/{base}...{head}")
    w.field("merges_url", u + "/merges")
    w.field("archive_url", u + "/{archive_format}{/ref}")
    w.field("downloads_url", u + "/downloads")
    w.field("issues_url", u + "/issues{/number}")
    w.field("pulls_url", u + "/pulls{/number}")
    w.field("milestones_url", u + "/milestones{/number}")
    w.field("notifications_url", u + "/notifications{?since,all,participating}")
    w.field("labels_url", u + "/labels{/name}")
    w.field("releases_url", u + "/releases{/id}")
    w.field("deployments_url", u + "/deployments")
    w.field("created_at", ISODate.format(r.createdAt))
    w.field("updated_at", ISODate.format(r.updatedAt))
    w.field("pushed_at", ISODate.format(r.pushedAt))
    w.field("git_url", "git://github.com/" + full + ".git")
    w.field("ssh_url", "git@github.com:" + full + ".git")
    w.field("clone_url", html + ".git")
    w.field("svn_url", html)
    w.field("homepage", r.homepage)
    w.field("size", r.size)
    w.field("stargazers_count", r.stars)
    w.field("watchers_count", r.stars)
    w.field("language", r.language)
    w.field("has_issues", true)
    w.field("has_projects", true)
    w.field("has_downloads", true)
    w.field("has_wiki", !r.archived)
    w.field("has_pages", r.hasPages)
    w.field("has_discussions", r.stars > 1000)
    w.field("forks_count", r.forks)
    w.key("mirror_url")
    w.null()
    w.field("archived", r.archived)
    w.field("disabled", false)
    w.field("open_issues_count", r.openIssues)
    w.key("license")
    if let li = r.licenseIndex {
      let l = CatalogVocabulary.licenses[li]
      w.objectStart()
      w.field("key", l.0)
      w.field("name", l.1)
      w.field("spdx_id", l.2)
      w.field("url", l.0 == "other" ? nil : apiBase + "/licenses/" + l.0)
      w.field("node_id", l.3)
      w.objectEnd()
    } else {
      w.null()
    }
    w.field("allow_forking", true)
    w.field("is_template", false)
    w.field("web_commit_signoff_required", false)
    w.key("topics")
    w.arrayStart()
    for t in r.topics { w.string(t) }
    w.arrayEnd()
    w.field("visibility", "public")
    w.field("forks", r.forks)
    w.field("open_issues", r.openIssues)
    w.field("watchers", r.stars)
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

/// Standard base64, for node ids.
enum Base64 {
  static func encode(_ bytes: [UInt8]) -> String {
    let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var out: [UInt8] = []
    out.reserveCapacity((bytes.count + 2) / 3 * 4)
    var i = 0
    while i < bytes.count {
      let b0 = Int(bytes[i])
      let b1 = i + 1 < bytes.count ? Int(bytes[i + 1]) : 0
      let b2 = i + 2 < bytes.count ? Int(bytes[i + 2]) : 0
      out.append(table[b0 >> 2])
      out.append(table[(b0 & 3) << 4 | b1 >> 4])
      out.append(i + 1 < bytes.count ? table[(b1 & 15) << 2 | b2 >> 6] : UInt8(ascii: "="))
      out.append(i + 2 < bytes.count ? table[b2 & 63] : UInt8(ascii: "="))
      i += 3
    }
    return String(decoding: out, as: UTF8.self)
  }
}
