#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waits for many descriptors at once, each registered with the events it waits for and a token
/// that comes back with its readiness: the serving loop's wait.
///
/// Events are `poll`'s flags (`POLLIN`, `POLLOUT`; `POLLHUP`, `POLLERR` and `POLLNVAL` are reported
/// whatever was asked for), level-triggered. On Linux it is `epoll`, whose wait costs the same
/// however many descriptors are registered (`poll` over 10,000 idle connections took milliseconds
/// per wake-up); elsewhere it is `poll` over an array kept up to date as descriptors come and go.
final class LoopbackPoller {
    /// A descriptor that is ready, by its token, and what it is ready for.
    struct Ready {
        let token: UInt64
        let events: Int16
    }

    #if os(Linux)
        private let descriptor: Int32
        /// `struct epoll_event` is 12 bytes (packed) on x86-64 and 16 (the data 8-aligned) elsewhere.
        #if arch(x86_64) || arch(i386)
            private static let eventSize = 12
            private static let dataOffset = 4
        #else
            private static let eventSize = 16
            private static let dataOffset = 8
        #endif
        private static let capacity = 256
        private var buffer: [UInt8]

        /// - Throws: ``LoopbackHTTPError/system(call:code:)`` when `epoll_create1` fails.
        init() throws(LoopbackHTTPError) {
            descriptor = LinuxEpoll.create(LinuxEpoll.closeOnExec)
            guard descriptor >= 0 else { throw .system(call: "epoll_create1", code: errno) }
            buffer = [UInt8](repeating: 0, count: Self.capacity * Self.eventSize)
        }

        deinit {
            close(descriptor)
        }

        /// Starts watching `fd` for `events`; `false` when the system refuses (out of memory or watches).
        func add(_ fd: Int32, token: UInt64, events: Int16) -> Bool {
            control(LinuxEpoll.add, fd, token: token, events: events)
        }

        /// Changes what `fd` is watched for.
        func modify(_ fd: Int32, token: UInt64, events: Int16) {
            _ = control(LinuxEpoll.modify, fd, token: token, events: events)
        }

        /// Stops watching `fd`; call before closing it.
        func remove(_ fd: Int32) {
            _ = LinuxEpoll.control(descriptor, LinuxEpoll.delete, fd, nil)
        }

        /// Waits until something is ready or `timeout` milliseconds pass (`-1`: no limit); an
        /// interrupted wait returns nothing ready.
        ///
        /// - Throws: ``LoopbackHTTPError/system(call:code:)`` when the wait fails.
        func wait(timeout: Int32) throws(LoopbackHTTPError) -> [Ready] {
            let count = buffer.withUnsafeMutableBytes {
                LinuxEpoll.wait(descriptor, $0.baseAddress, Int32(Self.capacity), timeout)
            }
            if count < 0 {
                if errno == EINTR { return [] }
                throw .system(call: "epoll_wait", code: errno)
            }
            return buffer.withUnsafeBytes { bytes in
                (0..<Int(count)).map { index in
                    let base = index * Self.eventSize
                    let events = bytes.loadUnaligned(fromByteOffset: base, as: UInt32.self)
                    // EPOLLIN, EPOLLOUT, EPOLLERR and EPOLLHUP have poll's values.
                    return Ready(
                        token: bytes.loadUnaligned(fromByteOffset: base + Self.dataOffset, as: UInt64.self),
                        events: Int16(truncatingIfNeeded: events & 0x1F))
                }
            }
        }

        private func control(_ operation: Int32, _ fd: Int32, token: UInt64, events: Int16) -> Bool {
            var event = [UInt8](repeating: 0, count: Self.eventSize)
            event.withUnsafeMutableBytes {
                $0.storeBytes(of: UInt32(UInt16(bitPattern: events)), toByteOffset: 0, as: UInt32.self)
                $0.storeBytes(of: token, toByteOffset: Self.dataOffset, as: UInt64.self)
            }
            return event.withUnsafeMutableBytes { LinuxEpoll.control(descriptor, operation, fd, $0.baseAddress) } == 0
        }
    #else
        private var descriptors: [pollfd] = []
        private var tokens: [UInt64] = []
        /// Where each watched descriptor is in `descriptors`.
        private var slots: [Int32: Int] = [:]

        init() throws(LoopbackHTTPError) {}

        /// Starts watching `fd` for `events`.
        func add(_ fd: Int32, token: UInt64, events: Int16) -> Bool {
            guard slots[fd] == nil else { return false }
            slots[fd] = descriptors.count
            descriptors.append(pollfd(fd: fd, events: events, revents: 0))
            tokens.append(token)
            return true
        }

        /// Changes what `fd` is watched for.
        func modify(_ fd: Int32, token: UInt64, events: Int16) {
            guard let slot = slots[fd] else { return }
            descriptors[slot].events = events
            tokens[slot] = token
        }

        /// Stops watching `fd`; call before closing it.
        func remove(_ fd: Int32) {
            guard let slot = slots.removeValue(forKey: fd) else { return }
            let last = descriptors.count - 1
            if slot != last {
                descriptors[slot] = descriptors[last]
                tokens[slot] = tokens[last]
                slots[descriptors[slot].fd] = slot
            }
            descriptors.removeLast()
            tokens.removeLast()
        }

        /// Waits until something is ready or `timeout` milliseconds pass (`-1`: no limit); an
        /// interrupted wait returns nothing ready.
        ///
        /// - Throws: ``LoopbackHTTPError/system(call:code:)`` when the wait fails.
        func wait(timeout: Int32) throws(LoopbackHTTPError) -> [Ready] {
            for index in descriptors.indices { descriptors[index].revents = 0 }
            let count = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if count < 0 {
                if errno == EINTR { return [] }
                throw .system(call: "poll", code: errno)
            }
            var ready: [Ready] = []
            ready.reserveCapacity(Int(count))
            for index in descriptors.indices where descriptors[index].revents != 0 {
                ready.append(Ready(token: tokens[index], events: descriptors[index].revents))
            }
            return ready
        }
    #endif
}

#if os(Linux)
    /// The `epoll` calls, which the Glibc module does not import (`sys/epoll.h` is not in it).
    /// Their arguments are integers and pointers, passed the same way by C and Swift.
    private enum LinuxEpoll {
        static let closeOnExec: Int32 = 0o2_000_000  // EPOLL_CLOEXEC, which is O_CLOEXEC
        static let add: Int32 = 1  // EPOLL_CTL_ADD
        static let delete: Int32 = 2  // EPOLL_CTL_DEL
        static let modify: Int32 = 3  // EPOLL_CTL_MOD

        static func create(_ flags: Int32) -> Int32 { epollCreate1(flags) }

        static func control(_ epoll: Int32, _ operation: Int32, _ fd: Int32, _ event: UnsafeMutableRawPointer?)
            -> Int32
        { epollControl(epoll, operation, fd, event) }

        static func wait(_ epoll: Int32, _ events: UnsafeMutableRawPointer?, _ capacity: Int32, _ timeout: Int32)
            -> Int32
        { epollWait(epoll, events, capacity, timeout) }
    }

    @_silgen_name("epoll_create1")
    private func epollCreate1(_ flags: Int32) -> Int32

    @_silgen_name("epoll_ctl")
    private func epollControl(_ epoll: Int32, _ operation: Int32, _ fd: Int32, _ event: UnsafeMutableRawPointer?)
        -> Int32

    @_silgen_name("epoll_wait")
    private func epollWait(_ epoll: Int32, _ events: UnsafeMutableRawPointer?, _ capacity: Int32, _ timeout: Int32)
        -> Int32
#endif
