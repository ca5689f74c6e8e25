import TestSupport
import Testing

@testable import HTTP

@Suite(.timeLimit(.minutes(2))) struct HTTPDateTests {
  @Test(arguments: [
    (0, "Thu, 01 Jan 1970 00:00:00 GMT"), (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
    (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"), (1_795_000_000, "Wed, 18 Nov 2026 11:06:40 GMT"),
  ])
  func formatsAndParses(_ seconds: Int, _ text: String) {
    expectEqual(HTTPDate.format(epochSeconds: seconds), text)
    expectEqual(HTTPDate.parse(text), seconds)
  }

  @Test(arguments: [
    "", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
  ])
  func rejectsOtherForms(_ text: String) {
    expectEqual(HTTPDate.parse(text), nil)
  }
}
