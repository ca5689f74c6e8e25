import Glibc

/// The flags a program takes, each with an optional environment variable, and how each one sets a
/// field of `Settings`. Variables are read first and flags override them; `--help` lists them all.
///
/// ```swift
/// struct Settings { var port = 8080 }
/// let table = OptionTable<Settings>(program: "demo", summary: "a demo", options: [
///   Option("--port", env: "PORT", value: "N", help: "listen port (8080)") {
///     $0.port = try OptionValue.int($1, in: 0...65535)
///   },
/// ])
/// var settings = Settings()
/// if case .help(let text) = try table.parse(["--port", "0"], environment: [:], into: &settings) {
///   print(text)
/// }
/// ```
public struct OptionTable<Settings>: Sendable {
  /// The program's name, as the help text and error messages show it.
  public let program: String
  /// One line under the program's name in the help text.
  public let summary: String
  /// The options in the order `--help` lists them.
  public let options: [Option<Settings>]
  /// Lines after the option list (environment-only variables, notes).
  public let epilogue: [String]

  /// A table of `options`.
  public init(program: String, summary: String, options: [Option<Settings>], epilogue: [String] = []) {
    self.program = program
    self.summary = summary
    self.options = options
    self.epilogue = epilogue
  }

  /// Applies the environment's variables, then `arguments` (without the program name) in order, to
  /// `settings`. A flag without a value name is a switch: `--flag` means true, `--flag=false` false.
  public func parse(_ arguments: [String], environment: [String: String], into settings: inout Settings)
    throws(OptionError) -> ParseResult
  {
    for option in options {
      guard let env = option.env, let value = environment[env], !value.isEmpty else { continue }
      try apply(option, value, to: &settings, naming: env)
    }
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if argument == "--help" || argument == "-h" { return .help(helpText) }
      let parts = argument.split(separator: "=", maxSplits: 1)
      let name = parts.first.map(String.init) ?? argument
      guard let option = options.first(where: { $0.flag == name }) else {
        throw OptionError("unknown option \(argument) (see --help)")
      }
      let value: String
      if parts.count > 1 {
        value = String(parts[1])
      } else if option.valueName == nil {
        value = "true"
      } else if index < arguments.count {
        value = arguments[index]
        index += 1
      } else {
        throw OptionError("\(name) needs a value")
      }
      try apply(option, value, to: &settings, naming: name)
    }
    return .run
  }

  private func apply(
    _ option: Option<Settings>, _ value: String, to settings: inout Settings, naming name: String
  )
    throws(OptionError)
  {
    do {
      try option.apply(&settings, value)
    } catch let error as OptionError {
      throw OptionError("\(name): \(error.description)")
    } catch {
      throw OptionError("\(name): \(error)")
    }
  }

  /// The `--help` text: every flag with its value name, its help and its variable.
  public var helpText: String {
    var lines = [
      "\(program): \(summary)", "", "usage: \(program) [options]", "",
      "options (flag, environment variable, default):",
    ]
    for option in options {
      let flag = option.valueName.map { "\(option.flag) \($0)" } ?? option.flag
      let env = option.env.map { "  [$\($0)]" } ?? ""
      lines.append("  \(Self.padded(flag))\(option.help)\(env)")
    }
    lines.append("  \(Self.padded("--help"))print this help and exit")
    if !epilogue.isEmpty { lines += [""] + epilogue }
    return lines.joined(separator: "\n")
  }

  /// The text padded with spaces to the help column.
  static func padded(_ text: String) -> String {
    text.count >= 28 ? text + " " : text + String(repeating: " ", count: 28 - text.count)
  }
}

/// What parsing a command line produced.
public enum ParseResult: Sendable, Equatable {
  /// Run with the settings.
  case run
  /// Print this help text and exit 0.
  case help(String)
}

/// A flag or variable that could not be used; the message names it.
public struct OptionError: Error, CustomStringConvertible, Equatable, Sendable {
  /// What was wrong, naming the flag or variable.
  public let description: String

  /// An error saying `description`.
  public init(_ description: String) { self.description = description }
}

extension OptionTable {
  /// `parse` over this process's arguments and the environment variables the options name.
  public func parseProcess(into settings: inout Settings, extraVariables: [String] = []) throws(OptionError)
    -> ParseResult
  {
    var environment: [String: String] = [:]
    for name in options.compactMap(\.env) + extraVariables {
      if let raw = getenv(name) { environment[name] = String(cString: raw) }
    }
    return try parse(Array(CommandLine.arguments.dropFirst()), environment: environment, into: &settings)
  }

  /// The settings from this process's arguments and environment, for a program's `main`: `--help`
  /// prints the help text and exits 0; a bad flag or variable prints `program: message` on standard
  /// error and exits 2.
  public func settingsOrExit(_ defaults: Settings, extraVariables: [String] = []) -> Settings {
    var settings = defaults
    do {
      if case .help(let text) = try parseProcess(into: &settings, extraVariables: extraVariables) {
        Self.write(1, text)
        exit(0)
      }
    } catch {
      Self.write(2, "\(program): \(error)")
      exit(2)
    }
    return settings
  }

  private static func write(_ descriptor: Int32, _ line: String) {
    let bytes = Array((line + "\n").utf8)
    // The pointer covers only the array's own bytes, for the length of the call.
    _ = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
  }
}
