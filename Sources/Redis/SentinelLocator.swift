import Synchronization
import TLS

/// The master a client's sentinels name, kept between connections. A connection that fails, or is
/// answered `READONLY`, forgets it (`invalidate`), so the next connection asks the sentinels again;
/// one question is in flight at a time and every connection that needs the answer waits for it. A
/// `+switch-master` heard by `watch()`, or an answer naming another master, moves to the new master
/// at once and raises the generation, so the pool drops connections to the old one.
final class SentinelLocator: Sendable {
  private struct State {
    /// The sentinels, the one that answered last first.
    var order: [RedisServerAddress]
    /// The master connections go to; nil until asked, or after a failure.
    var master: RedisServerAddress?
    /// The last master heard of, kept across `invalidate` to tell a failover from a reconnect.
    var known: RedisServerAddress?
    /// Raised at each change of master.
    var generation = 0
    var asking = false
    var waiters: [ReplySlot<Located>] = []
  }

  /// A master and the generation it belongs to.
  struct Located: Sendable {
    let master: RedisServerAddress
    let generation: Int
  }

  private let settings: RedisSentinelConfiguration
  private let base: RedisConfiguration
  private let io: RedisIOLoop
  private let tls: TLSClientContext?
  private let telemetry: RedisTelemetry
  /// Runs after each change of master (the client closes its idle connections).
  private let onSwitch: @Sendable () -> Void
  private let state: Mutex<State>

  init(
    _ settings: RedisSentinelConfiguration, base: RedisConfiguration, io: RedisIOLoop, tls: TLSClientContext?,
    telemetry: RedisTelemetry, onSwitch: @escaping @Sendable () -> Void
  ) {
    self.settings = settings
    self.base = base
    self.io = io
    self.tls = tls
    self.telemetry = telemetry
    self.onSwitch = onSwitch
    state = Mutex(State(order: settings.sentinels))
  }

  /// The current generation.
  var generation: Int { state.withLock { $0.generation } }

  /// The master to connect to: the one known, or the sentinels' answer.
  func master() async throws(RedisError) -> Located {
    let slot = ReplySlot<Located>()
    let (known, ask) = state.withLock { state -> (Located?, Bool) in
      if let master = state.master { return (Located(master: master, generation: state.generation), false) }
      state.waiters.append(slot)
      let ask = !state.asking
      state.asking = true
      return (nil, ask)
    }
    if let known { return known }
    if ask { startAsking() }
    return try await slot.wait(start: {}).get()
  }

  /// Forgets `master` after a connection to it failed or was refused as not the master.
  func invalidate(_ master: RedisServerAddress) {
    state.withLock { if $0.master == master { $0.master = nil } }
  }

  /// Asks the sentinels now, even with a master known (after missing announcements); waits for it.
  func refresh() async {
    let slot = ReplySlot<Located>()
    let ask = state.withLock { state -> Bool in
      state.waiters.append(slot)
      let ask = !state.asking
      state.asking = true
      return ask
    }
    if ask { startAsking() }
    _ = await slot.wait(start: {})
  }

  /// Moves to `master` (a `+switch-master`, or an answer that names another master).
  func switchMaster(to master: RedisServerAddress) {
    let changed = state.withLock { state -> Bool in
      state.master = master
      guard state.known != master else { return false }
      let first = state.known == nil
      state.known = master
      if first { return false }
      state.generation += 1
      return true
    }
    guard changed else { return }
    telemetry.followedFailover(to: master)
    onSwitch()
  }

  /// Listens for `+switch-master` on one sentinel after another until cancelled: subscribes, asks
  /// once more (an announcement may have been missed while not subscribed), then follows each
  /// announcement; when that sentinel's connection ends, the next sentinel is tried, and after a
  /// round without one, it waits a moment.
  func watch() async {
    while !Task.isCancelled {
      for sentinel in state.withLock({ $0.order }) {
        if Task.isCancelled { return }
        await listen(to: sentinel)
      }
      // Real time: a pause between rounds when no sentinel can be reached.
      try? await Task.sleep(for: .milliseconds(500))
    }
  }

  private func listen(to sentinel: RedisServerAddress) async {
    let subscription: RedisSubscription
    do {
      let connection = try await RedisConnection.connect(
        SentinelQuery.configuration(for: sentinel, settings, base: base), io: io,
        dial: RedisConnection.Dial(tls: tls, isSentinel: true))
      subscription = RedisSubscription(connection: connection)
      try await subscription.subscribe(["+switch-master"])
    } catch {
      return
    }
    defer { subscription.close() }
    await refresh()
    for await message in subscription.messages {
      if let master = SentinelQuery.switchedMaster(message.payload, name: settings.masterName) {
        switchMaster(to: master)
      }
    }
  }

  /// Runs one question to the sentinels apart from any caller, so a caller that gives up does not
  /// end it for the others; every waiter gets its answer.
  private func startAsking() {
    let order = state.withLock { $0.order }
    Task { [self] in
      let result: Result<SentinelQuery.Answer, RedisError>
      do throws(RedisError) {
        result = .success(try await SentinelQuery.master(settings, order: order, of: base, io: io, tls: tls))
      } catch {
        result = .failure(error)
      }
      if case .success(let answer) = result { switchMaster(to: answer.master) }
      let (waiters, outcome) = state.withLock {
        state -> ([ReplySlot<Located>], Result<Located, RedisError>) in
        state.asking = false
        defer { state.waiters = [] }
        switch result {
        case .success(let answer):
          // The sentinel that answered is asked first next time.
          state.order.removeAll { $0 == answer.sentinel }
          state.order.insert(answer.sentinel, at: 0)
          return (state.waiters, .success(Located(master: answer.master, generation: state.generation)))
        case .failure(let error):
          return (state.waiters, .failure(error))
        }
      }
      for waiter in waiters { waiter.finish(outcome) }
    }
  }
}
