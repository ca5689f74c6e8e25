import GitHub
import Paging
import TestSupport
import Testing

@testable import App

@Suite(.timeLimit(.minutes(6))) struct ListKindTests {
  @Test func searchURLsCarryTheQueryEncodedAndTheirNumber() {
    let plain = ListKind.search(SearchQuery(text: "swift", sort: nil, order: .desc))
    expectEqual(plain.pageURL(page: 1), "/?q=swift")
    expectEqual(plain.pageURL(page: 3), "/?q=swift&page=3")
    expectEqual(plain.fragmentURL(after: 40), "/fragments/results?q=swift&after=40")
    let sorted = ListKind.search(SearchQuery(text: "language:c++ ü", sort: .stars, order: .asc))
    expectEqual(sorted.pageURL(page: 2), "/?q=language%3Ac%2B%2B%20%C3%BC&sort=stars&order=asc&page=2")
    expectEqual(
      sorted.fragmentURL(after: 0),
      "/fragments/results?q=language%3Ac%2B%2B%20%C3%BC&sort=stars&order=asc&after=0")
  }

  @Test func ownerURLs() {
    let owner = ListKind.owner("apple")
    expectTrue(owner.pageURL(page: 1) == "/owners/apple" && owner.pageURL(page: 2) == "/owners/apple?page=2")
    expectEqual(owner.fragmentURL(after: 20), "/fragments/owners/apple?after=20")
  }

  /// `Link.capacity` bounds what `write` writes, and `TextBuilder` drops text beyond it: at the
  /// extremes (a query of GitHub's 256 characters, each three bytes when encoded, the longest window
  /// key name, numbers at `Int`'s ends and timestamps in the long spelling of years outside 0-9999),
  /// every URL is written whole, ending with its last parameter.
  @Test func linksAtTheirLongestAreWrittenWhole() {
    let text = String(repeating: "ü", count: 128)  // 256 UTF-8 bytes, each encoded as %XX
    let extreme = WindowCursor(
      window: KeyWindow(
        keys: Interval(lower: Int.min, upper: Int.max), slice: Interval(lower: Int.min, upper: Int.max)),
      skip: Int.max, position: Int.max, total: Int.max)
    let lists: [ListKind] = [
      .search(SearchQuery(text: text, sort: .helpWantedIssues, order: .desc)),
      .search(SearchQuery(text: text, sort: nil, order: .asc)),
      .owner(String(repeating: "ü", count: 39)),
    ]
    for list in lists {
      let link = list.fragmentLink(.window(extreme))
      let url = link.text
      expectTrue(url.utf8.count < link.capacity, "\(url.utf8.count) of \(link.capacity)")
      expectTrue(url.hasSuffix("&skip=\(Int.max)&of=\(Int.max)"), "\(url)")
      expectTrue(url.contains(String(repeating: "%C3%BC", count: 39)), "\(url)")
      let page = list.pageURL(page: Int.max, cursor: .window(extreme))
      expectTrue(page.hasSuffix("&of=\(Int.max)"), "\(page)")
    }
  }
}
