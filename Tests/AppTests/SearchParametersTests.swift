import Encodings
import GitHub
import HTTP
import TestSupport
import Testing

@testable import App

@Suite(.timeLimit(.minutes(6))) struct SearchParametersTests {
  private static func parameters(_ target: String) -> SearchParameters {
    SearchParameters(HTTPRequest(method: .get, target: target))
  }

  @Test func readsTheFiveNamesDecodedAndTheLastOfADuplicate() {
    let p = Self.parameters(
      "/fragments/results?q=old&%71=+language%3Apython+&after=20&x=1&page=3&sort=stars&order=asc")
    expectTrue(p.q == "language:python" && p.after == "20" && p.page == "3")
    expectTrue(p.sort == .stars && p.order == .asc && p.problem == nil)
    expectEqual(p.query, SearchQuery(text: "language:python", sort: .stars, order: .asc))
  }

  @Test func absentAndMalformedParameters() {
    let bare = Self.parameters("/")
    expectTrue(
      bare.q == "" && bare.after == nil && bare.page == nil && bare.query == nil && bare.problem == nil)
    // A value with a broken escape is skipped, like a pair that was never sent.
    expectEqual(Self.parameters("/?q=swift&after=%zz").after, nil)
    expectEqual(Self.parameters("/?q=swift&sort=size").problem?.contains("sorted by"), true)
    expectEqual(Self.parameters("/?q=swift&order=up").problem?.contains("order"), true)
  }

  @Test func theLengthLimitCountsCharactersNotBytes() {
    let accents = String(repeating: "é", count: SearchParameters.maxQueryLength)
    expectEqual(Self.parameters("/?q=\(URLEncoding.percentEncode(accents))").problem, nil)
    let long = String(repeating: "a", count: SearchParameters.maxQueryLength + 1)
    expectEqual(Self.parameters("/?q=\(long)").problem?.contains("257"), true)
  }
}
