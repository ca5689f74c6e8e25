import HTTP
import TestSupport
import Testing

@testable import GitHub

/// Inputs found while fuzzing `ResponseDecoding` (`script/fuzz GitHubJSON`).
@Suite(.timeLimit(.minutes(3))) struct FuzzRegressionTests {
  /// A week start near Int.min overflowed the day arithmetic and trapped, so one hostile or corrupt
  /// upstream body could take the server down. Any Int must now give a date.
  @Test(arguments: [Int.min, Int.min + 1, Int.min + 86_399, Int.max, Int.max - 86_399])
  func isoDateOfExtremeWeekStartDoesNotTrap(_ seconds: Int) {
    expectTrue(CivilDate.isoDate(unixSeconds: seconds).utf8.count >= 10)
  }

  /// The floor division kept its meaning around zero.
  @Test(arguments: [
    (-1, "1969-12-31"), (-86_400, "1969-12-31"), (-86_401, "1969-12-30"), (-2_208_988_800, "1900-01-01"),
    (86_399, "1970-01-01"),
  ])
  func isoDateNearTheEpoch(_ seconds: Int, _ expected: String) {
    expectEqual(CivilDate.isoDate(unixSeconds: seconds), expected)
  }

  @Test func starHistoryWithMinimumWeekDecodes() throws {
    let body = "[{\"week\":-9223372036854775808,\"total\":1,\"days\":[0,0,0,0,0,0,0]}]"
    let history = try ResponseDecoding.starHistory(Array(body.utf8))
    expectEqual(history.weeks.map(\.weekStart), [0], "clamped to the epoch")
  }
}
