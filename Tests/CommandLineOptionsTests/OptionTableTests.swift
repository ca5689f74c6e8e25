import CommandLineOptions
import TestSupport
import Testing

@Suite("Option tables", .timeLimit(.minutes(2)))
struct OptionTableTests {
  struct Settings: Equatable {
    var port = 8080
    var verbose = false
    var name = "default"
  }

  static let table = OptionTable<Settings>(
    program: "demo", summary: "a demo.",
    options: [
      Option("--port", env: "PORT", value: "N", help: "listen port (8080)") {
        $0.port = try OptionValue.int($1, in: 0...65535)
      },
      Option("--verbose", env: "VERBOSE", help: "say more (off)") { $0.verbose = try OptionValue.bool($1) },
      Option("--name", value: "TEXT", help: "a name (default)") { $0.name = $1 },
    ], epilogue: ["environment only:", "  SECRET  never a flag"])

  static func parse(_ arguments: [String], _ environment: [String: String] = [:]) throws(OptionError)
    -> Settings
  {
    var settings = Settings()
    try expectEqual(table.parse(arguments, environment: environment, into: &settings), .run)
    return settings
  }

  @Test func flagsOverrideVariablesAndBothSpellingsWork() throws {
    try expectEqual(Self.parse([], ["PORT": "81", "VERBOSE": "yes"]), Settings(port: 81, verbose: true))
    try expectEqual(Self.parse(["--port", "82"], ["PORT": "81"]).port, 82)
    try expectEqual(Self.parse(["--port=83", "--name=a=b"]), Settings(port: 83, name: "a=b"))
    expectTrue(try Self.parse(["--verbose"]).verbose)
    try expectEqual(Self.parse(["--verbose=off"], ["VERBOSE": "1"]).verbose, false)
    try expectEqual(Self.parse([], ["PORT": ""]).port, 8080, "an empty variable is unset")
  }

  @Test(arguments: [
    (["--nope"], "unknown option --nope (see --help)"), (["--port"], "--port needs a value"),
    (["--port", "x"], "--port: expected a whole number in 0...65535, got x"),
    (["--port", "70000"], "--port: expected a whole number in 0...65535, got 70000"),
    (["--verbose=maybe"], "--verbose: expected true or false, got maybe"),
  ])
  func badFlagsAreNamed(arguments: [String], message: String) {
    #expect(throws: OptionError(message)) { try Self.parse(arguments) }
  }

  @Test func aBadVariableIsNamed() {
    #expect(throws: OptionError("PORT: expected a whole number in 0...65535, got -1")) {
      try Self.parse([], ["PORT": "-1"])
    }
  }

  @Test func helpListsEveryFlagWithItsVariable() throws {
    var settings = Settings()
    guard
      case .help(let text) = try Self.table.parse(["--port", "1", "-h"], environment: [:], into: &settings)
    else {
      Issue.record("no help")
      return
    }
    expectTrue(text.hasPrefix("demo: a demo.\n"))
    expectTrue(text.contains("  --port N                    listen port (8080)  [$PORT]\n"))
    expectTrue(text.contains("  --verbose                   say more (off)  [$VERBOSE]\n"))
    expectTrue(text.contains("  --name TEXT                 a name (default)\n"))
    expectTrue(text.hasSuffix("\nenvironment only:\n  SECRET  never a flag"))
  }

  @Test(arguments: [
    ("http://a/", "http://a"), ("https://a.b/api/v3", "https://a.b/api/v3"),
  ])
  func urlsLoseTheirTrailingSlash(text: String, url: String) throws {
    try expectEqual(OptionValue.url(text), url)
  }

  @Test func sharesAreFiniteAndInRange() {
    #expect(throws: OptionError.self) { try OptionValue.double("nan", in: 0...1) }
    #expect(throws: OptionError.self) { try OptionValue.double("1.5", in: 0...1) }
    expectEqual((try? OptionValue.double("0.25", in: 0...1)), 0.25)
  }
}
