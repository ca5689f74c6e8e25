import CCurl
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The multi handle as seen from other threads.
// @unchecked Sendable: other threads only call curl_multi_wakeup (thread-safe by libcurl's contract),
// under the engine's lock and only until the loop clears it before freeing the handle.
struct MultiHandle: @unchecked Sendable {
  let raw: UnsafeMutableRawPointer
}

/// The thread-safe front of the loop thread: a locked command queue, the wake-up, the thread itself
/// and counters for tests.
final class CurlEngine: Sendable {
  /// Work handed to the loop thread.
  enum Command: Sendable {
    case add(RequestTicket)
    case cancel(RequestTicket)
  }

  private struct Shared {
    var commands: [Command] = []
    /// Nil once the loop has stopped, so no one wakes a freed multi handle.
    var multi: MultiHandle?
    var stopRequested = false
  }

  /// Settings every transfer uses.
  let configuration: CurlClientConfiguration
  /// Easy handles that exist (attached or pooled).
  let liveEasyHandles = Atomic<Int>(0)
  /// Easy handles attached to the multi handle.
  let activeTransfers = Atomic<Int>(0)
  private let shared: Mutex<Shared>
  private let thread = Mutex<pthread_t?>(nil)

  /// libcurl's process-wide setup, done once; Swift runs global initialisers exactly once, thread-safely.
  private static let globalInit: CURLcode = ccurl_global_init()

  init(configuration: CurlClientConfiguration) throws(ClientError) {
    var config = configuration
    config.maxConcurrentRequests = max(1, config.maxConcurrentRequests)
    self.configuration = config
    guard CurlEngine.globalInit == CURLE_OK else { throw .other("curl_global_init failed") }
    guard let multi = curl_multi_init() else { throw .other("curl_multi_init failed") }
    // The connection cache holds one idle connection per concurrent transfer, and no more connections
    // than that are ever open: MAXCONNECTS alone bounds only the idle ones, and a loaded run once saw
    // more than 32 open to one host.
    ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, config.maxConcurrentRequests)
    ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, config.maxConcurrentRequests)
    ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
    shared = Mutex(Shared(multi: MultiHandle(raw: multi)))
    let loop = MultiLoop(engine: self, multi: multi)
    // Retained here and released by the thread: the loop object is handed over, never shared.
    let context = Unmanaged.passRetained(loop).toOpaque()
    var tid = pthread_t()
    let started = pthread_create(
      &tid, nil,
      { raw in
        guard let raw else { return nil }
        // Safe: raw is the retained MultiLoop passed to pthread_create; this thread is its only user.
        let loop = Unmanaged<MultiLoop>.fromOpaque(raw).takeRetainedValue()
        loop.run()
        return nil
      }, context)
    guard started == 0 else {
      // Safe: the thread never started, so the retain taken above is still ours to drop.
      Unmanaged<MultiLoop>.fromOpaque(context).release()
      curl_multi_cleanup(multi)
      throw .other("cannot start the curl thread")
    }
    thread.withLock { $0 = tid }
  }

  /// Queues a command and wakes the loop; false once the client is shutting down.
  func submit(_ command: Command) -> Bool {
    shared.withLock { s in
      guard !s.stopRequested, let multi = s.multi else { return false }
      s.commands.append(command)
      // One wake-up per batch: a non-empty queue means one is already pending.
      if s.commands.count == 1 { curl_multi_wakeup(multi.raw) }
      return true
    }
  }

  /// Moves queued commands into `buffer` (loop thread); returns true when the loop must stop.
  func takeCommands(into buffer: inout [Command]) -> Bool {
    shared.withLock { s in
      swap(&buffer, &s.commands)
      return s.stopRequested
    }
  }

  /// Called by the loop before freeing the multi handle; returns commands that arrived meanwhile.
  func markStopped() -> [Command] {
    shared.withLock { s in
      s.multi = nil
      s.stopRequested = true
      defer { s.commands = [] }
      return s.commands
    }
  }

  /// Stops the loop, fails pending requests with `.cancelled` and waits for the thread to end.
  func shutdown() {
    shared.withLock { s in
      guard !s.stopRequested else { return }
      s.stopRequested = true
      if let multi = s.multi { curl_multi_wakeup(multi.raw) }
    }
    guard
      let tid = thread.withLock({ t -> pthread_t? in
        defer { t = nil }; return t
      })
    else { return }
    pthread_join(tid, nil)
  }
}
