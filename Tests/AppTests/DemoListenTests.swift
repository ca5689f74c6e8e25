import App
import CommandLineOptions
import TestSupport
import Testing

/// `--demo` serves an offline double whose client secret is published, so it listens on loopback only.
@Suite("--demo listens on loopback only", .timeLimit(.minutes(6)))
struct DemoListenTests {
  @Test(arguments: [
    ["--host", "0.0.0.0"], ["--host", "::"], ["--host", "192.168.1.20"], ["--host", "127.0.0.1.example"],
    ["--host", "128.0.0.1"], ["--host", "1270.0.0.1"],
  ])
  func refusesAnAddressOthersCanReach(_ host: [String]) {
    var configuration = AppConfiguration()
    do {
      _ = try configuration.parse(arguments: ["--demo"] + host, environment: [:])
      Issue.record("--demo --host \(host[1]) was accepted")
    } catch {
      expectTrue(error.description.contains("--demo"))
      expectTrue(error.description.contains(host[1]))
    }
  }

  @Test func refusesItFromTheEnvironmentToo() {
    var configuration = AppConfiguration()
    #expect(throws: OptionError.self) {
      _ = try configuration.parse(
        arguments: [], environment: ["REPOSCROLL_DEMO": "1", "REPOSCROLL_HOST": "0.0.0.0"])
    }
  }

  @Test(arguments: ["127.0.0.1", "127.0.0.2", "::1", "localhost", "LOCALHOST"])
  func acceptsLoopback(_ host: String) throws {
    var configuration = AppConfiguration()
    _ = try configuration.parse(arguments: ["--demo", "--host", host], environment: [:])
    expectTrue(configuration.demo)
    expectEqual(configuration.host, host)
  }

  @Test func otherAddressesAreFineWithoutTheDemo() throws {
    var configuration = AppConfiguration()
    _ = try configuration.parse(arguments: ["--host", "0.0.0.0"], environment: [:])
    expectTrue(!configuration.demo)
    expectTrue(AppConfiguration.helpText.contains("loopback"))
  }
}
