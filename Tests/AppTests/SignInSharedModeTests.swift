import App
import CurlClient
import Foundation
import HTTP
import TestSupport
import Testing

@Suite("Sign in with GitHub in shared mode (real redis-server)", .serialized, .timeLimit(.minutes(6)))
struct SignInSharedModeTests {
  /// Two instances on one Redis: a reader who signs in through one is signed in on the other; with
  /// Redis down they read anonymously with a notice (never a 500) and keep their cookie; after Redis
  /// restarts (with persistence) the session is there again; signing out on one ends it on both.
  @Test func anyInstanceServesTheSessionAndSurvivesARedisRestart() async throws {
    let redis = try await RedisServerProcess(extraArguments: [
      "--appendonly", "yes", "--appendfsync", "always",
    ])
    let first = try SignInHarness(redisURL: redis.url())
    let second = try SignInHarness(redisURL: redis.url(), fake: first.fake)
    let jar = CookieJar()
    try await first.signIn(jar, login: "mona", returnTo: "/?q=swift")
    let elsewhere = try await second.get("/fragments/results?q=swift&after=0", jar)
    expectEqual(elsewhere.headers["Cache-Control"], "private, no-store")
    expectTrue(second.text(try await second.get("/?q=swift", jar)).contains(">mona</span>"))

    await redis.kill()
    let down = try await second.get("/?q=swift", jar)
    expectEqual(down.status.code, 200)
    expectTrue(second.text(down).contains("Sign-in is unavailable right now"))
    let fragment = try await second.get("/fragments/results?q=swift&after=20", jar)
    expectEqual(fragment.status.code, 200)
    expectEqual(HTMLScan.cards(second.text(fragment)).count, 20)
    expectTrue(jar[second.sessionCookie] != nil, "an outage signs nobody out")

    try await redis.restart()
    // Polled through the app: each store probes Redis again once its retry interval has passed on
    // the instance's clock, which the test moves instead of waiting.
    let signedIn = await eventually(poll: .milliseconds(50)) {
      first.clock.advance(1)
      second.clock.advance(1)
      return second.text(try await second.get("/?q=swift", jar)).contains(">mona</span>")
    }
    expectTrue(signedIn, "the session survived the Redis restart")

    let sessionID = try #require(jar[first.sessionCookie])
    let csrf = try #require(SignInHarness.csrf(in: first.text(try await first.get("/", jar))))
    let out = try await second.request(.post, "/logout", jar, body: "csrf=\(csrf)")
    expectEqual(out.status.code, 303)
    // The old cookie opens nothing on the other instance either.
    let replay = CookieJar()
    replay.set(first.sessionCookie, sessionID)
    expectTrue(!first.text(try await first.get("/", replay)).contains("account-login"))
    await redis.stop()
  }
}
