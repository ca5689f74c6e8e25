import Credentials
import GitHub
import Sessions
import Synchronization

/// GitHub's token endpoint as far as renewal needs it: single-use refresh tokens that rotate, with
/// `bad_refresh_token` for a used one, counts of every call, revocations, and an optional gate that
/// holds each refresh until the test opens it (so that other requests must wait for it).
final class FakeTokenAuthority: TokenRefresher {
  struct State {
    var live: Set<String> = []
    var refreshes = 0
    /// Refresh tokens presented twice: the reader would be signed out by GitHub.
    var replays = 0
    var revoked: [String] = []
    var serial = 0
    var failNext: OAuthError?
    var gate: CheckedContinuation<Void, Never>?
    var gated = false
    var waiting: [CheckedContinuation<Void, Never>] = []
  }

  let state = Mutex(State())
  let lifetime: Int

  init(lifetime: Int = 28_800) {
    self.lifetime = lifetime
    (held, heldContinuation) = AsyncStream.makeStream(of: Void.self)
  }

  /// A new pair as a sign-in hands it out.
  func grant() -> OAuthGrant {
    state.withLock { state in Self.issue(&state, lifetime: lifetime) }
  }

  var refreshes: Int { state.withLock { $0.refreshes } }
  var replays: Int { state.withLock { $0.replays } }
  var revoked: [String] { state.withLock { $0.revoked } }

  /// Makes the next refresh fail with `error` (without using its refresh token).
  func failNext(_ error: OAuthError) { state.withLock { $0.failNext = error } }

  /// Holds every refresh until `open()`.
  func close() { state.withLock { $0.gated = true } }

  /// Lets held refreshes through.
  func open() {
    let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.gated = false
      defer { state.waiting = [] }
      return state.waiting
    }
    for continuation in waiting { continuation.resume() }
  }

  /// Told each time a refresh stops at the gate.
  private let held: AsyncStream<Void>
  private let heldContinuation: AsyncStream<Void>.Continuation

  /// Waits until a refresh is held at the gate (the event, not a poll).
  func untilHeld() async {
    for await _ in held { return }
  }

  func refresh(_ refreshToken: String) async throws(OAuthError) -> OAuthGrant {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let held = state.withLock { state -> Bool in
        guard state.gated else { return false }
        state.waiting.append(continuation)
        return true
      }
      if held { heldContinuation.yield() } else { continuation.resume() }
    }
    let outcome = state.withLock { state -> Result<OAuthGrant, OAuthError> in
      state.refreshes += 1
      if let error = state.failNext {
        state.failNext = nil
        return .failure(error)
      }
      guard state.live.remove(refreshToken) != nil else {
        state.replays += 1
        return .failure(.badRefreshToken)
      }
      return .success(Self.issue(&state, lifetime: lifetime))
    }
    return try outcome.get()
  }

  func revokeInBackground(_ token: String) { state.withLock { $0.revoked.append(token) } }

  private static func issue(_ state: inout State, lifetime: Int) -> OAuthGrant {
    state.serial += 1
    let refresh = "ghr_refresh\(state.serial)"
    state.live.insert(refresh)
    return OAuthGrant(
      accessToken: "ghu_access\(state.serial)", scopes: [], expiresIn: lifetime, refreshToken: refresh,
      refreshTokenExpiresIn: 15_897_600)
  }

  /// Runs `count` attempts at once while the refresh is held (after `close()`), opens it once one
  /// refresh waits, and returns what each attempt returned.
  func whileHeld(_ count: Int, _ attempt: @escaping @Sendable (Int) async -> String?) async -> [String?] {
    await withTaskGroup(of: String?.self) { group in
      for index in 0..<count { group.addTask { await attempt(index) } }
      group.addTask {
        await self.untilHeld()
        self.open()
        return "gate"
      }
      var tokens: [String?] = []
      for await token in group where token != "gate" { tokens.append(token) }
      return tokens
    }
  }
}
