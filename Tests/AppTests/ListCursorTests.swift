import Paging
import TestSupport
import Testing

@testable import App

/// A window's range is read as GitHub writes it, the `..` found in the UTF-8.
@Suite(.timeLimit(.minutes(6))) struct ListCursorTests {
  @Test func rangesAreRead() {
    let number = { (text: Substring) in ListCursor.number(text, upTo: ListCursor.maxKey) }
    expectEqual(ListCursor.interval("3..9", parse: number), Interval(lower: 3, upper: 9))
    expectEqual(ListCursor.interval("*..9", parse: number), Interval(lower: nil, upper: 9))
    expectEqual(ListCursor.interval("3..*", parse: number), Interval(lower: 3, upper: nil))
    expectEqual(ListCursor.interval("*..*", parse: number), .all)
    expectEqual(ListCursor.interval("7", parse: number), .just(7))
    for refused in ["9..3", "1.2..3", "..", "3..", "..3", "3...9", "3..9..", "", "é..3", "3..9\u{301}"] {
      expectEqual(ListCursor.interval(refused, parse: number), nil, "\(refused)")
    }
  }

  @Test func sliceTimesAreRead() {
    let fields = ListCursor.Fields(
      keys: ["stars": "19"], created: "2025-09-30T11:17:04Z..*", skip: "63", of: "27571")
    let cursor = try? ListCursor.parse(position: "5000", fields: fields, key: "stars")
    let window = KeyWindow(keys: .just(19), slice: Interval(lower: 1_759_231_024, upper: nil))
    expectEqual(cursor, .window(WindowCursor(window: window, skip: 63, position: 5000, total: 27571)))
  }
}
