import GitHubDouble
import TestSupport
import Testing

@Suite("OpenAPI conformance")
struct SchemaConformanceTests {
  let double = Fixtures.shared
  let v = Fixtures.validator

  @Test(
    "search responses validate against GitHub's 200 schema",
    arguments: ["go", "xss", "language:rust stars:>10", "parser fork:true", "stars:>=0"])
  func searchValidates(q: String) async throws {
    let r = try await double.get("/search/repositories?q=\(enc(q))&per_page=100")
    let j = try r.json()
    let items = j["items"]?.array ?? []
    #expect(items.count > 0)
    let errors = v.validate(j, file: "search-repositories-200-response.schema.json")
    #expect(errors.isEmpty, "\(errors.prefix(5))")
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
    #expect(errors.contains { $0.contains("forks_count") })
    #expect(errors.contains { $0.contains("node_id") })
    #expect(errors.contains { $0.contains("created_at") })
  }

  @Test("history pages validate against the stargazer-history schema and the path's 200 schema")
  func historyValidates() async throws {
    let repo = try #require(double.catalog.repositories.first { $0.stars > 500 })
    let owner = double.catalog.owner(of: repo).login
    let r = try await double.get("/repos/\(owner)/\(repo.name)/stargazers/history?per_page=30")
    let j = try r.json()
    let weeks = try #require(j.array)
    #expect(!weeks.isEmpty)
    for w in weeks { #expect(v.validate(w, file: "schema.stargazer-history.json").isEmpty) }
    let pathSchema = "/get/responses/200/content/application~1json/schema"
    let errors = v.validate(j, file: "path.repos-owner-repo-stargazers-history.json", pointer: pathSchema)
    #expect(errors.isEmpty, "\(errors.prefix(5))")
  }

  @Test("count validates against the count path's 200 schema")
  func countValidates() async throws {
    let repo = double.catalog.repositories[42]
    let owner = double.catalog.owner(of: repo).login
    let r = try await double.get("/repos/\(owner)/\(repo.name)/stargazers/count")
    let j = try r.json()
    #expect(j["count"]?.int == repo.stars)
    let pathSchema = "/get/responses/200/content/application~1json/schema"
    #expect(v.validate(j, file: "path.repos-owner-repo-stargazers-count.json", pointer: pathSchema).isEmpty)
    #expect(
      v.validate(
        .object(["count": .int(-1)]), file: "path.repos-owner-repo-stargazers-count.json",
        pointer: pathSchema
      ).count == 1)
  }

  @Test("error bodies validate against basic-error")
  func errorsValidate() async throws {
    let r = try await double.get("/repos/nobody-here/nothing/stargazers/count")
    #expect(r.status == .notFound)
    #expect(v.validate(try r.json(), file: "schema.basic-error.json").isEmpty)
  }
}
