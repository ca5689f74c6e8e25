import GitHubDouble
import HTTP
import TestSupport
import Testing

/// The landing page's example links, read from the template so these tests follow it.
struct LandingExample: CustomStringConvertible {
  /// The query string of the link (`q=…&sort=…`), already URL-encoded.
  var queryString: String
  /// The query as shown, e.g. `http server stars:>1000`.
  var shown: String
  var description: String { shown }

  static func load() -> [LandingExample] {
    let path = Fixtures.packageRoot() + "/Templates/partials/landing.mustache"
    guard let html = fileText(atPath: path) else { preconditionFailure("cannot read \(path)") }
    var examples: [LandingExample] = []
    var rest = html[...]
    while let href = rest.firstRange(of: "<a href=\"/?") {
      rest = rest[href.upperBound...]
      guard let end = rest.firstIndex(of: "\"") else { break }
      let link = String(rest[..<end]).replacing("&amp;", with: "&")
      var shown = ""
      if let open = rest.firstRange(of: "<code>"), let close = rest.firstRange(of: "</code>"),
        open.upperBound <= close.lowerBound
      {
        shown = String(rest[open.upperBound..<close.lowerBound])
          .replacing("&gt;", with: ">").replacing("&lt;", with: "<").replacing("&amp;", with: "&")
      }
      examples.append(LandingExample(queryString: link, shown: shown))
      rest = rest[end...]
    }
    return examples
  }
}

@Suite("Landing examples", .timeLimit(.minutes(3)))
struct LandingQueryTests {
  let double = Fixtures.shared

  @Test("every example query on the landing page finds plenty in the demo catalog")
  func examplesFindPlenty() async throws {
    let examples = LandingExample.load()
    expectTrue(examples.count >= 6, "examples parsed from the landing template: \(examples)")
    for example in examples {
      let r = try await double.get("/search/repositories?\(example.queryString)&per_page=100")
      expectEqual(r.status, .ok, "\(example)")
      let j = try r.json()
      let total = j["total_count"]?.int ?? 0
      let items = j["items"]?.array ?? []
      expectTrue(total >= 40, "\(example): \(total) results")
      expectEqual(items.count, min(total, 100), "\(example)")
      if example.shown == "http server stars:>1000" {
        expectTrue(total >= 100, "\(example): \(total) results")
      }
    }
  }

  @Test("the examples' own qualifiers hold in their results")
  func resultsHonourQualifiers() async throws {
    let (_, swift) = try await page("topic:server-side-swift")
    expectTrue(swift.allSatisfy { $0["topics"]?.array?.contains(.string("server-side-swift")) == true })
    let (_, http) = try await page("http server stars:>1000")
    for item in http {
      let text =
        [item["name"]?.string, item["description"]?.string].compactMap { $0 }.joined(separator: " ")
        + " " + (item["topics"]?.array?.compactMap(\.string).joined(separator: " ") ?? "")
      expectTrue(text.lowercased().contains("http") && text.lowercased().contains("server"))
      expectTrue((item["stargazers_count"]?.int ?? 0) > 1000)
    }
    let (_, mustache) = try await page("mustache in:name")
    expectTrue(mustache.allSatisfy { $0["name"]?.string?.lowercased().contains("mustache") == true })
    let (_, scroll) = try await page("infinite scroll language:javascript")
    expectTrue(scroll.allSatisfy { $0["language"]?.string == "JavaScript" })
    let (_, rising) = try await page("created:>2025-01-01 stars:>500")
    expectTrue(rising.allSatisfy { ($0["created_at"]?.string ?? "") >= "2025-01-02" })
  }

  private func page(_ q: String) async throws -> (Int, [SchemaJSON]) {
    let j = try await double.get("/search/repositories?q=\(enc(q))&per_page=100").json()
    let items = j["items"]?.array ?? []
    expectTrue(!items.isEmpty, "\(q)")
    return (j["total_count"]?.int ?? 0, items)
  }
}
