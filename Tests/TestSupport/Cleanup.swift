/// Runs `body`, then `cleanup`, also when `body` throws, and returns what `body` returned. For
/// fixtures that stop asynchronously, which `defer` cannot await.
///
/// ```swift
/// let processes = try await AppProcesses.start(doubleArguments: [], appArguments: [])
/// try await withCleanup({ await processes.stop() }) { try await body(processes) }
/// ```
public func withCleanup<T>(
  isolation: isolated (any Actor)? = #isolation, _ cleanup: () async -> Void,
  _ body: () async throws -> T
) async throws -> T {
  let result: T
  do {
    result = try await body()
  } catch {
    await cleanup()
    throw error
  }
  await cleanup()
  return result
}
