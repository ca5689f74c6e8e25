import Testing

// The suite's expectations, as plain functions instead of Swift Testing's `#expect` macro.
//
// Why: every `#expect` expands, at compile time, into closures and generic calls the type checker
// then solves, and that cost a third of the test targets' build (AppTests: 48 against 31 CPU-s for
// the same module, paired, measured on this project's CI flags). A plain generic function is checked
// once per call at the price of any call. What is lost: `#expect(a > b)` shows the value of each side
// on failure; `expectTrue` shows only its comment. `expectEqual` shows both values, which covers two
// thirds of the suite's expectations. `#expect(throws:)` and `#require` stay macros.
//
// ```swift
// expectEqual(response.status, 200)
// expectTrue(body.contains("<main"), "the page has its main landmark")
// ```

/// Records an issue when `actual` is not equal to `expected`, with both values, where it is called.
public func expectEqual<T: Equatable>(
  _ actual: T, _ expected: T, _ comment: @autoclosure () -> Comment? = nil,
  fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
) {
  guard actual != expected else { return }
  let values = "Expectation failed: \(String(reflecting: actual)) == \(String(reflecting: expected))"
  record(values, comment(), SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
}

/// Records an issue when `condition` is false, with `comment`, where it is called.
public func expectTrue(
  _ condition: Bool, _ comment: @autoclosure () -> Comment? = nil,
  fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
) {
  guard !condition else { return }
  record(
    "Expectation failed", comment(),
    SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
}

private func record(_ what: String, _ comment: Comment?, _ location: SourceLocation) {
  let text = comment.map { "\(what): \($0.rawValue)" } ?? what
  Issue.record(Comment(rawValue: text), sourceLocation: location)
}
