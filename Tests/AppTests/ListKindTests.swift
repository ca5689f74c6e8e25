import GitHub
import Testing

@testable import App

@Suite(.timeLimit(.minutes(6))) struct ListKindTests {
  @Test func searchURLsCarryTheQueryEncodedAndTheirNumber() {
    let plain = ListKind.search(SearchQuery(text: "swift", sort: nil, order: .desc))
    #expect(plain.pageURL(page: 1) == "/?q=swift")
    #expect(plain.pageURL(page: 3) == "/?q=swift&page=3")
    #expect(plain.fragmentURL(after: 40) == "/fragments/results?q=swift&after=40")
    let sorted = ListKind.search(SearchQuery(text: "language:c++ ü", sort: .stars, order: .asc))
    #expect(sorted.pageURL(page: 2) == "/?q=language%3Ac%2B%2B%20%C3%BC&sort=stars&order=asc&page=2")
    #expect(
      sorted.fragmentURL(after: 0)
        == "/fragments/results?q=language%3Ac%2B%2B%20%C3%BC&sort=stars&order=asc&after=0")
  }

  @Test func ownerURLs() {
    let owner = ListKind.owner("apple")
    #expect(owner.pageURL(page: 1) == "/owners/apple" && owner.pageURL(page: 2) == "/owners/apple?page=2")
    #expect(owner.fragmentURL(after: 20) == "/fragments/owners/apple?after=20")
  }
}
