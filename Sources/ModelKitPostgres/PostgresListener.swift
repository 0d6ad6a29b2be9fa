import CLibPQ
import Foundation
import ModelKit
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hears `NOTIFY`s on one channel over a connection of its own, on a thread of its own, until
/// released. After a dropped connection it reconnects, and reports that anything may have
/// changed meanwhile.
final class PostgresListener: DriverListener {
    private let state: ListenerState

    init(keywords: [String], values: [String], channel: String, receive: @escaping @Sendable (String) -> Void) throws {
        let connection = try Self.listeningConnection(keywords: keywords, values: values, channel: channel)
        let state = ListenerState(connection: connection)
        self.state = state
        let thread = Thread {
            Self.run(state, keywords: keywords, values: values, channel: channel, receive: receive)
        }
        thread.name = "ModelKit.PostgresListener"
        thread.start()
    }

    deinit { state.isStopped.store(true, ordering: .releasing) }

    private static func listeningConnection(keywords: [String], values: [String], channel: String) throws -> PostgresConnection {
        let connection = try PostgresConnection(keywords: keywords, values: values, searchPath: nil)
        try connection.execute("LISTEN \"\(channel)\"")
        return connection
    }

    /// Waits on the socket a quarter second at a time, so that a release is noticed soon.
    private static func run(
        _ box: ListenerState, keywords: [String], values: [String], channel: String, receive: @Sendable (String) -> Void
    ) {
        while !box.isStopped.load(ordering: .acquiring) {
            guard let connection = box.connection else {
                Thread.sleep(forTimeInterval: 0.5)
                if let fresh = try? listeningConnection(keywords: keywords, values: values, channel: channel) {
                    box.connection = fresh
                    receive("{\"from\":\"\",\"all\":true}")  // notifications may have been missed
                }
                continue
            }
            let handle = connection.handle
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 250)
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else {
                box.connection = nil
                continue
            }
            while let notification = PQnotifies(handle) {
                let payload = String(cString: notification.pointee.extra)
                PQfreemem(notification)
                receive(payload)
            }
        }
    }
}

/// The listener's connection, touched only by its thread, and whether it should stop.
private final class ListenerState: @unchecked Sendable {
    var connection: PostgresConnection?
    let isStopped = Atomic<Bool>(false)
    init(connection: PostgresConnection) { self.connection = connection }
}
