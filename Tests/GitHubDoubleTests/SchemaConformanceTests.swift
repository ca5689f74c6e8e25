import GitHubDouble
import HTTP
import TestSupport
import Testing

@Suite("OpenAPI conformance", .timeLimit(.minutes(3)))
struct SchemaConformanceTests {
  let double = Fixtures.shared
  let v: JSONSchemaValidator

  init() throws { v = try Fixtures.validator }

  @Test(
    "search responses validate against GitHub's 200 schema",
    arguments: ["go", "xss", "language:rust stars:>10", "parser fork:true", "stars:>=0"])
  func searchValidates(q: String) async throws {
    let r = try await Fixtures.realistic.get("/search/repositories?q=\(enc(q))&per_page=100")
    let j = try r.json()
    let items = j["items"]?.array ?? []
    expectTrue(items.count > 0)
    // Items in an older era's shape lack exactly these; the current schema requires them.
    let legacy = Set(items.indices.filter { items[$0]["topics"] == nil })
    let errors = v.validate(j, file: "search-repositories-200-response.schema.json").filter { error in
      !legacy.contains { error == "$.items[\($0)]: missing required 'archived'" }
        && !legacy.contains { error == "$.items[\($0)]: missing required 'license'" }
    }
    expectTrue(errors.isEmpty, "\(errors.prefix(5))")
  }

  @Test("the validator catches a missing required field and a wrong type")
  func validatorCanFail() async throws {
    let r = try await double.get("/search/repositories?q=go&per_page=1")
    guard case .object(var top) = try r.json(), case .array(var items)? = top["items"],
      case .object(var item)? = items.first
    else {
      Issue.record("unexpected shape")
      return
    }
    item["forks_count"] = .string("3")
    item["node_id"] = nil
    item["created_at"] = .string("yesterday")
    items[0] = .object(item)
    top["items"] = .array(items)
    let errors = v.validate(.object(top), file: "search-repositories-200-response.schema.json")
    expectTrue(errors.contains { $0.contains("forks_count") })
    expectTrue(errors.contains { $0.contains("node_id") })
    expectTrue(errors.contains { $0.contains("created_at") })
  }

  @Test("history pages validate against the stargazer-history schema and the path's 200 schema")
  func historyValidates() async throws {
    let repo = try #require(double.catalog.repositories.first { $0.stars > 500 })
    let owner = double.catalog.owner(of: repo).login
    let r = try await double.get("/repos/\(owner)/\(repo.name)/stargazers/history?per_page=30")
    let j = try r.json()
    let weeks = try #require(j.array)
    expectTrue(!weeks.isEmpty)
    for w in weeks { expectTrue(v.validate(w, file: "schema.stargazer-history.json").isEmpty) }
    let pathSchema = "/get/responses/200/content/application~1json/schema"
    let errors = v.validate(j, file: "path.repos-owner-repo-stargazers-history.json", pointer: pathSchema)
    expectTrue(errors.isEmpty, "\(errors.prefix(5))")
  }

  @Test("count validates against the count path's 200 schema")
  func countValidates() async throws {
    let repo = double.catalog.repositories[42]
    let owner = double.catalog.owner(of: repo).login
    let r = try await double.get("/repos/\(owner)/\(repo.name)/stargazers/count")
    let j = try r.json()
    expectEqual(j["count"]?.int, repo.stars)
    let pathSchema = "/get/responses/200/content/application~1json/schema"
    expectTrue(
      v.validate(j, file: "path.repos-owner-repo-stargazers-count.json", pointer: pathSchema).isEmpty)
    expectEqual(
      v.validate(
        .object(["count": .int(-1)]), file: "path.repos-owner-repo-stargazers-count.json",
        pointer: pathSchema
      ).count, 1)
  }

  @Test("error bodies validate against basic-error")
  func errorsValidate() async throws {
    let r = try await double.get("/repos/nobody-here/nothing/stargazers/count")
    expectEqual(r.status, .notFound)
    expectTrue(v.validate(try r.json(), file: "schema.basic-error.json").isEmpty)
  }
}

@Suite("Repository and user endpoints", .timeLimit(.minutes(3)))
struct RepositoryEndpointTests {
  let double = Fixtures.shared

  @Test("GET /repos/{owner}/{repo} is case-insensitive and matches the catalog")
  func repository() async throws {
    let repo = double.catalog.repositories[123]
    let owner = double.catalog.owner(of: repo)
    let r = try await double.get("/repos/\(owner.login.uppercased())/\(repo.name.uppercased())")
    expectEqual(r.status, .ok)
    let j = try r.json()
    expectEqual(j["id"]?.int, repo.id)
    expectEqual(j["full_name"]?.string, owner.login + "/" + repo.name)
    expectEqual(j["stargazers_count"]?.int, repo.stars)
    expectEqual(j["owner"]?["avatar_url"]?.string, "http://double.test/u/\(owner.id)?v=4")
    expectEqual(j["score"], nil)
    expectTrue(r.headers["ETag"] != nil)
  }

  @Test("GET /users/{login}/repos lists the owner's repositories by name, paginated")
  func userRepos() async throws {
    let owner = try #require(
      double.catalog.owners.max { $0.repositoryIndices.count < $1.repositoryIndices.count })
    let r = try await double.get("/users/\(owner.login)/repos?per_page=5")
    let names = try #require(try r.json().array?.compactMap { $0["name"]?.string })
    expectEqual(names.count, min(5, owner.repositoryIndices.count))
    expectEqual(names, names.sorted { $0.lowercased() < $1.lowercased() })
    expectEqual(r.headers["Link"]?.contains("rel=\"last\""), (owner.repositoryIndices.count > 5))
    try await expectEqual(double.get("/users/no-such-owner-x/repos").status, .notFound)
  }
}

@Suite("Validator against real recordings", .timeLimit(.minutes(3)))
struct RecordedResponseTests {
  @Test(
    "recorded 2019-2022 GitHub search bodies validate: the checker is not too strict",
    arguments: [
      "077-get-search-repositories.json", "078-get-search-repositories.json",
      "079-get-search-repositories.json",
    ])
  func recorded(file: String) throws {
    let path = try SharedData.path("github-recordings/normalized/" + file)
    let recording = try JSONSchemaValidator.loadJSON(path: path)
    let body = try #require(recording["response"]?["body_json"])
    expectTrue((body["items"]?.array?.count ?? 0) > 0)
    let errors = try Fixtures.validator.validate(body, file: "search-repositories-200-response.schema.json")
    expectTrue(errors.isEmpty, "\(errors.prefix(5))")
  }
}
