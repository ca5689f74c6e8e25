// The GitHub target's response decoding (internal, hence the testable import) on arbitrary bodies.
import HTTP

@testable import GitHub

/// A Link header as GitHub sends it with a search page.
let searchHeaders: HTTPHeaders = [
  "Link": "<https://api.github.com/search/repositories?q=swift&page=2>; rel=\"next\", "
    + "<https://api.github.com/search/repositories?q=swift&page=34>; rel=\"last\""
]

/// libFuzzer entry: the bytes go to every decoder; each either returns a model that keeps its
/// invariants or throws `GitHubError.decoding`.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
  guard let data else { return 0 }
  // libFuzzer guarantees `size` readable bytes at `data` for the duration of this call.
  let body = Array(UnsafeBufferPointer(start: data, count: size))
  do {
    let page = try ResponseDecoding.searchPage(body, headers: searchHeaders, page: 2, perPage: 30)
    expect(page.page == 2 && page.perPage == 30 && !page.isStale, "page fields changed")
    expect(page.links["next"] != nil && page.links["last"] != nil, "links lost: \(page.links)")
    for item in page.items {
      expect(item.homepage.map { !$0.isEmpty } ?? true, "empty homepage kept")
    }
  } catch {
    expectDecoding(error)
  }
  do {
    let history = try ResponseDecoding.starHistory(body)
    for week in history.weeks {
      expect(week.days.count == 7, "week with \(week.days.count) days")
      expect(week.week.utf8.count >= 10, "bad ISO date \(week.week)")
    }
    expect(
      zip(history.weeks, history.weeks.dropFirst()).allSatisfy { $0.weekStart >= $1.weekStart },
      "history not newest first")
  } catch {
    expectDecoding(error)
  }
  let message = ResponseDecoding.errorMessage(body)
  expect(message.count <= 300, "error message of \(message.count) characters")
  return 0
}

/// Every decoding failure is the typed `.decoding` error with a reason.
func expectDecoding(_ error: GitHubError) {
  guard case .decoding(let reason) = error else { fatalError("unexpected error \(error)") }
  expect(!reason.isEmpty, "decoding error without a reason")
}
