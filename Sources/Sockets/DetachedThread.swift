import Glibc

/// Starting a detached POSIX thread that runs one closure: for loop threads that must not be
/// Foundation or Dispatch threads.
public enum DetachedThread {
  private final class Body {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
  }

  /// Starts a thread running `body`; throws if the thread cannot be created.
  public static func start(_ body: @escaping () -> Void) throws(SocketError) {
    let box = Unmanaged.passRetained(Body(body))
    var thread = pthread_t()
    let rc = pthread_create(
      &thread, nil,
      { raw in
        // The retained box passed through the void pointer is taken back exactly once, here.
        guard let raw else { return nil }
        Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
        return nil
      }, box.toOpaque())
    if rc != 0 {
      box.release()
      throw SocketError("pthread_create", code: rc)
    }
    pthread_detach(thread)
  }
}
