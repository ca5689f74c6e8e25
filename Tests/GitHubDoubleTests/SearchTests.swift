import GitHubDouble
import HTTP
import TestSupport
import Testing

@Suite("Search", .timeLimit(.minutes(3)))
struct SearchTests {
  let double = Fixtures.shared

  func search(_ q: String, _ extra: String = "") async throws -> (HTTPResponse, SchemaJSON) {
    let r = try await double.get("/search/repositories?q=\(enc(q))\(extra)")
    return (r, try r.json())
  }

  func items(_ j: SchemaJSON) -> [SchemaJSON] { j["items"]?.array ?? [] }

  @Test("terms match name, description or topics, case-insensitively; all terms must match")
  func terms() async throws {
    let (r, j) = try await search("PARSER", "&per_page=100")
    expectEqual(r.status, .ok)
    expectTrue((j["total_count"]?.int ?? 0) > 0)
    for item in items(j) {
      let hay =
        [item["name"]?.string, item["description"]?.string].compactMap { $0 }.joined(separator: " ")
        + " " + (item["topics"]?.array?.compactMap(\.string).joined(separator: " ") ?? "")
      expectTrue(hay.lowercased().contains("parser"))
    }
    let (_, both) = try await search("parser json", "&per_page=100")
    let (_, one) = try await search("parser")
    expectTrue((both["total_count"]?.int ?? 0) < (one["total_count"]?.int ?? 0))
  }

  @Test("in:name restricts terms to the name")
  func inName() async throws {
    let (_, j) = try await search("tetris in:name", "&per_page=100")
    expectTrue(!items(j).isEmpty)
    for item in items(j) { expectEqual(item["name"]?.string?.lowercased().contains("tetris"), true) }
    let (_, all) = try await search("tetris")
    expectTrue((all["total_count"]?.int ?? 0) > (j["total_count"]?.int ?? 0))
  }

  @Test("language:, topic:, user:, org: filter exactly")
  func qualifiers() async throws {
    let (_, go) = try await search("language:go", "&per_page=100")
    expectTrue(!items(go).isEmpty)
    expectTrue(items(go).allSatisfy { $0["language"]?.string == "Go" })
    let (_, cpp) = try await search("language:\"jupyter notebook\"", "&per_page=100")
    expectTrue(items(cpp).allSatisfy { $0["language"]?.string == "Jupyter Notebook" } && !items(cpp).isEmpty)
    let (_, hyphen) = try await search("language:Jupyter-Notebook", "&per_page=100")
    expectEqual(hyphen["total_count"], cpp["total_count"])
    let (_, plus) = try await search("language:c++")
    expectTrue((plus["total_count"]?.int ?? 0) > 0)
    let (_, topic) = try await search("topic:rust", "&per_page=100")
    expectTrue(!items(topic).isEmpty)
    expectTrue(items(topic).allSatisfy { $0["topics"]?.array?.contains(.string("rust")) == true })
    let busy = double.catalog.owners.max { $0.repositoryIndices.count < $1.repositoryIndices.count }
    let login = try #require(busy?.login)
    let (_, user) = try await search("user:\(login.uppercased()) fork:true", "&per_page=100")
    expectEqual(user["total_count"]?.int, busy?.repositoryIndices.count)
    expectTrue(items(user).allSatisfy { $0["owner"]?["login"]?.string == login })
    let org = try #require(double.catalog.owners.first { $0.isOrganization })
    let (_, orgHits) = try await search("org:\(org.login) fork:true")
    expectEqual(orgHits["total_count"]?.int, org.repositoryIndices.count)
    let person = try #require(double.catalog.owners.first { !$0.isOrganization })
    let (_, none) = try await search("org:\(person.login)")
    expectEqual(none["total_count"]?.int, 0)
  }

  @Test(
    "stars qualifiers",
    arguments: [
      ("stars:>1000", 1001, Int.max), ("stars:>=1000", 1000, Int.max), ("stars:<5", 0, 4),
      ("stars:10..20", 10, 20), ("stars:50", 50, 50), ("stars:*..3", 0, 3),
    ])
  func stars(q: String, low: Int, high: Int) async throws {
    let (_, j) = try await search(q + " fork:true", "&per_page=100&sort=stars&order=asc")
    let expected = double.catalog.publicRepositories.filter { $0.stars >= low && $0.stars <= high }.count
    expectEqual(j["total_count"]?.int, expected)
    expectTrue(expected > 0)
    for item in items(j) {
      let s = item["stargazers_count"]?.int ?? -1
      expectTrue(s >= low && s <= high)
    }
  }

  @Test("fork: false (default), true, only")
  func forks() async throws {
    let total = double.catalog.publicRepositories.count
    let forkCount = double.catalog.publicRepositories.filter(\.fork).count
    let (_, d) = try await search("stars:>=0")
    let (_, t) = try await search("stars:>=0 fork:true")
    let (_, o) = try await search("stars:>=0 fork:only")
    expectEqual(d["total_count"]?.int, total - forkCount)
    expectEqual(t["total_count"]?.int, total)
    expectEqual(o["total_count"]?.int, forkCount)
    expectTrue(items(o).allSatisfy { $0["fork"]?.bool == true })
  }

  @Test(
    "sort by stars, forks, updated, help-wanted-issues in both orders",
    arguments: [
      ("stars", "stargazers_count"), ("forks", "forks_count"), ("updated", "updated_at"),
      ("help-wanted-issues", ""),
    ])
  func sorting(sort: String, field: String) async throws {
    for order in ["desc", "asc"] {
      let (_, j) = try await search("language:python", "&sort=\(sort)&order=\(order)&per_page=100")
      let list = items(j)
      expectEqual(list.count, 100)
      guard !field.isEmpty else { continue }
      let keys: [String] = list.map {
        if let i = $0[field]?.int { return String(repeating: "0", count: 12 - String(i).count) + String(i) }
        return $0[field]?.string ?? ""
      }
      expectEqual(keys, (order == "asc" ? keys.sorted() : keys.sorted(by: >)), "\(sort) \(order)")
    }
  }

  @Test("best match ranks name over topic over description, then by stars")
  func bestMatch() async throws {
    let (_, j) = try await search("chess", "&per_page=100")
    let list = items(j)
    func rank(_ item: SchemaJSON) -> Int {
      if item["name"]?.string?.lowercased().contains("chess") == true { return 0 }
      if item["topics"]?.array?.contains(where: { $0.string?.contains("chess") == true }) == true { return 1 }
      return 2
    }
    let ranks = list.map(rank)
    expectEqual(ranks, ranks.sorted())
    let scores = list.compactMap { $0["score"] }
    expectEqual(scores.count, list.count)
    let (_, asc) = try await search("chess", "&per_page=100&order=asc")
    expectEqual(items(asc).map { $0["id"] }, list.map { $0["id"] }, "order is ignored without sort")
  }

  @Test("pagination: per_page default 30, max 100, pages do not overlap, Link as GitHub shapes it")
  func pagination() async throws {
    let (first, j1) = try await search("language:javascript", "&sort=stars")
    expectEqual(items(j1).count, 30)
    let total = try #require(j1["total_count"]?.int)
    expectTrue(total > 1000)
    let base = "http://double.test/search/repositories?q=language%3Ajavascript&sort=stars"
    expectEqual(first.headers["Link"], "<\(base)&page=2>; rel=\"next\", <\(base)&page=34>; rel=\"last\"")
    let (second, j2) = try await search("language:javascript", "&sort=stars&page=2")
    expectEqual(
      second.headers["Link"],
      "<\(base)&page=1>; rel=\"prev\", <\(base)&page=3>; rel=\"next\", <\(base)&page=34>; rel=\"last\", "
        + "<\(base)&page=1>; rel=\"first\"")
    let ids1 = Set(items(j1).compactMap { $0["id"]?.int })
    let ids2 = Set(items(j2).compactMap { $0["id"]?.int })
    expectTrue(ids1.isDisjoint(with: ids2))
    let (_, big) = try await search("language:javascript", "&per_page=500")
    expectEqual(items(big).count, 100)
    let (lastPage, j10) = try await search("language:javascript", "&per_page=100&page=10")
    expectEqual(items(j10).count, 100)
    let link = try #require(lastPage.headers["Link"])
    expectTrue(
      !link.contains("rel=\"next\"") && link.contains("rel=\"prev\"") && link.contains("rel=\"first\""))
    let (_, j34) = try await search("language:javascript", "&page=34")
    expectEqual(items(j34).count, 10, "results stop at the 1000th")
    expectEqual(first.headers["Cache-Control"], "no-cache")
    expectEqual(first.headers["ETag"], nil)
  }

  @Test("Link keeps the query and replaces page in place")
  func linkReplacesPage() async throws {
    let r = try await double.get("/search/repositories?page=2&q=go&per_page=5")
    let link = try #require(r.headers["Link"])
    expectTrue(
      link.hasPrefix("<http://double.test/search/repositories?page=1&q=go&per_page=5>; rel=\"prev\""))
  }

  @Test("a page starting past 1000 results is GitHub's 422")
  func thousandCap() async throws {
    for (page, perPage) in [(11, 100), (35, 30), (1001, 1)] {
      let r = try await double.get("/search/repositories?q=go&per_page=\(perPage)&page=\(page)")
      expectEqual(r.status.code, 422)
      let j = try r.json()
      expectEqual(j["message"]?.string, "Only the first 1000 search results are available")
      expectTrue(j["documentation_url"]?.string != nil)
      expectTrue(try Fixtures.validator.validate(j, file: "schema.validation-error.json").isEmpty)
    }
  }

  @Test("empty and over-long queries are 422 Validation Failed with errors[]")
  func badQueries() async throws {
    for target in ["/search/repositories", "/search/repositories?q=", "/search/repositories?q=+++"] {
      let r = try await double.get(target)
      expectEqual(r.status.code, 422)
      let j = try r.json()
      expectEqual(j["message"]?.string, "Validation Failed")
      expectEqual(j["errors"]?[0]?["code"]?.string, "missing")
      expectEqual(j["errors"]?[0]?["field"]?.string, "q")
      expectTrue(try Fixtures.validator.validate(j, file: "schema.validation-error.json").isEmpty)
    }
    let ok = try await double.get("/search/repositories?q=\(String(repeating: "a", count: 256))")
    expectEqual(ok.status, .ok)
    let long = try await double.get("/search/repositories?q=\(String(repeating: "a", count: 257))")
    expectEqual(long.status.code, 422)
    let j = try long.json()
    expectEqual(j["errors"]?[0]?["message"]?.string, "The search is longer than 256 characters.")
    expectEqual(j["errors"]?[0]?["code"]?.string, "invalid")
  }

  @Test("hostile fixtures are findable and returned verbatim in JSON")
  func hostileInResults() async throws {
    let (_, j) = try await search("xss", "&sort=stars")
    let descs = items(j).compactMap { $0["description"]?.string }
    expectTrue(descs.contains { $0.contains("<img src=x onerror=window.__xss=1>") })
    expectTrue(descs.contains { $0.contains("\"><script>window.__xss=1</script>") })
  }
}

@Suite("Hostile input", .timeLimit(.minutes(3)))
struct HostileInputTests {
  let double = Fixtures.small()

  @Test(
    "extreme numbers and malformed parameters never crash",
    arguments: [
      "/search/repositories?q=go&page=9223372036854775807&per_page=100",
      "/search/repositories?q=go&page=-5&per_page=-1",
      "/search/repositories?q=stars%3A%3E9223372036854775807",
      "/search/repositories?q=stars%3A%3C-9223372036854775808",
      "/search/repositories?q=stars%3Aabc..%2A",
      "/search/repositories?q=created%3A%3E9999-12-31T23%3A59%3A59%2B23%3A59",
      "/search/repositories?q=pushed%3A0000-01-01..%2A+created%3A2025-01-01T",
      "/search/repositories?q=%22unterminated",
      "/search/repositories?q=%00%FF",
      "/users/x/repos?page=9223372036854775807",
      "/u/99999999999999999999?s=99999999999999999999",
      "/repos/a/b/stargazers/history?page=9223372036854775807&per_page=9223372036854775807",
    ])
  func extremes(target: String) async throws {
    let r = try await double.get(target)
    expectTrue(r.status.code < 500)
  }

  @Test("a huge injected latency is capped, not overflowed")
  func latencyCap() {
    let r = LatencyRange(min: 0, max: Int.max)
    expectEqual(r.max, LatencyRange.ceiling)
    expectEqual(LatencyRange(parsing: "5..x"), nil)
    expectEqual(LatencyRange(parsing: "20..10"), LatencyRange(min: 10, max: 20))
  }
}
