import Synchronization

extension ApplicationLogger {
    /// Keeps every entry logged through its ``logger``: for tests, and for tools that must act on
    /// errors the lenient APIs only log.
    ///
    /// ```swift
    /// let recorder = ApplicationLogger.Recorder()
    /// let token = Application.override(\.logger, with: recorder.logger)
    /// $items.insert(item)
    /// if let failure = recorder.messages(at: .error).first { … }
    /// ```
    public final class Recorder: Sendable {
        private let recorded = Mutex<[Entry]>([])

        /// An empty recorder.
        public init() {}

        /// A logger that records into this recorder.
        public var logger: ApplicationLogger {
            ApplicationLogger { entry in self.recorded.withLock { $0.append(entry) } }
        }

        /// Every entry recorded so far, in order.
        public var entries: [Entry] { recorded.withLock { $0 } }

        /// The messages recorded at `level`, in order.
        public func messages(at level: Level) -> [String] {
            entries.filter { $0.level == level }.map(\.message)
        }
    }
}
