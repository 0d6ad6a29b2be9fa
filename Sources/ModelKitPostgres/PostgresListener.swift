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
/// released, and sends the process's announcements on it from the same thread, so that a save
/// never waits for one. After a dropped connection it reconnects, reports that anything may have
/// changed meanwhile, and sends what was queued.
final class PostgresListener: DriverListener {
    private let state: ListenerState

    init(keywords: [String], values: [String], channel: String, receive: @escaping @Sendable (String) -> Void) throws {
        let connection = try Self.listeningConnection(keywords: keywords, values: values, channel: channel)
        let state = try ListenerState(connection: connection)
        self.state = state
        let thread = Thread {
            Self.run(state, keywords: keywords, values: values, channel: channel, receive: receive)
        }
        thread.name = "ModelKit.PostgresListener"
        thread.start()
    }

    /// The thread sends what is queued, then ends.
    deinit {
        state.isStopped.store(true, ordering: .releasing)
        state.wake()
    }

    /// Past this many announcements waiting (the connection is down), they are replaced by one
    /// that says anything may have changed.
    static let outboxLimit = 16
    /// What every instance reads as a change of unknown rows, this one's included.
    static let anythingChanged = "{\"from\":\"\",\"all\":true}"

    func announce(_ payload: String) {
        state.outbox.withLock { outbox in
            if outbox.count < Self.outboxLimit { outbox.append(payload) } else { outbox = [Self.anythingChanged] }
        }
        state.wake()
    }

    private static func listeningConnection(keywords: [String], values: [String], channel: String) throws -> PostgresConnection {
        let connection = try PostgresConnection(keywords: keywords, values: values, searchPath: nil)
        try connection.execute("LISTEN \"\(channel)\"")
        return connection
    }

    /// Waits on the socket and the wake-up pipe, a quarter second at a time.
    private static func run(
        _ box: ListenerState, keywords: [String], values: [String], channel: String, receive: @Sendable (String) -> Void
    ) {
        while !box.isStopped.load(ordering: .acquiring) {
            guard let connection = box.connection else {
                Thread.sleep(forTimeInterval: 0.5)
                if let fresh = try? listeningConnection(keywords: keywords, values: values, channel: channel) {
                    box.connection = fresh
                    receive(anythingChanged)  // notifications may have been missed
                }
                continue
            }
            let handle = connection.handle
            var descriptors = [
                pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0),
                pollfd(fd: box.wakeReader, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&descriptors, 2, 250)
            if descriptors[1].revents != 0 { box.drainWakes() }
            send(box, on: connection, channel: channel)
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
        // Released: what is queued goes out, over a new connection if the last one dropped.
        guard !box.outbox.withLock({ $0.isEmpty }) else { return }
        if box.connection == nil { box.connection = try? listeningConnection(keywords: keywords, values: values, channel: channel) }
        if let connection = box.connection { send(box, on: connection, channel: channel) }
    }

    /// Sends the queued announcements, in order. Those not sent when the connection drops wait
    /// for the next connection; one the server refuses is dropped.
    private static func send(_ box: ListenerState, on connection: PostgresConnection, channel: String) {
        var queued = box.outbox.withLock { outbox in
            defer { outbox.removeAll() }
            return outbox[...]
        }
        while let payload = queued.first {
            // A dropped connection is left to the loop, which listens again on a new one; the
            // statement would reconnect without listening.
            guard PQstatus(connection.handle) == CONNECTION_OK else {
                box.outbox.withLock { $0.insert(contentsOf: queued, at: 0) }
                return
            }
            do {
                try connection.notify(channel, payload: payload)
            } catch let error as PostgresError where error.kind == .connectionLost {
                box.outbox.withLock { $0.insert(contentsOf: queued, at: 0) }
                return
            } catch {}
            queued.removeFirst()
        }
    }
}

/// The listener's connection, touched only by its thread; the announcements waiting for it; the
/// pipe that wakes it; whether it should stop.
private final class ListenerState: @unchecked Sendable {
    var connection: PostgresConnection?
    let outbox = Mutex<[String]>([])
    let isStopped = Atomic<Bool>(false)
    let wakeReader: Int32
    private let wakeWriter: Int32

    init(connection: PostgresConnection) throws {
        self.connection = connection
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw PostgresError(kind: .cannotConnect, message: "no pipe for the listener: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        (wakeReader, wakeWriter) = (ends[0], ends[1])
    }

    deinit {
        close(wakeReader)
        close(wakeWriter)
    }

    /// Wakes the thread; a full pipe means it is woken already.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
    }

    func drainWakes() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakeReader, &bytes, bytes.count) > 0 {}
    }
}
