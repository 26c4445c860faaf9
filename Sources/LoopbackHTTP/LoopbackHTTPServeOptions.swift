/// How a ``LoopbackHTTPServer`` serves its connections.
package struct LoopbackHTTPServeOptions: Sendable {
    /// The size bounds of each request, and whether chunked bodies are taken.
    package var limits = LoopbackHTTPLimits()
    /// How long a connection may stay silent (from its opening, or from the previous response on a
    /// kept-alive connection) before it is closed silently, and how long a request may then take to
    /// arrive whole from its first byte before it is answered `408` and closed.
    package var readTimeout: Duration = .seconds(10)
    /// How long writing one response may wait for the peer to read it before the connection is closed.
    package var writeTimeout: Duration = .seconds(5)
    /// When to give up with ``LoopbackHTTPError/timedOut``; `nil` waits until stopped.
    package var deadline: ContinuousClock.Instant?
    /// The most connections open at once; one more is closed as soon as it is accepted.
    package var maxConnections = 16
    /// Whether a connection stays open after a response when the client allows it. When `false`,
    /// every response says `Connection: close` and the connection is closed after it.
    package var keepAlive = false
    /// How long ``LoopbackHTTPServer/stop()`` lets the requests being answered finish (their
    /// responses written) before every connection is closed.
    package var drainTimeout: Duration = .seconds(5)
    /// How long a connection that was answered for the last time keeps reading, and dropping,
    /// what the client still sends, so that the client reads the answer rather than a reset. The
    /// connections lingering when serving ends go on lingering, on the serving thread, after
    /// serving has returned and the listener is closed.
    package var lingerTimeout: Duration = .seconds(2)

    /// The defaults: 10 s to deliver a request, 5 s to take a response, 16 connections, no keep-alive.
    package init() {}
}

/// What a ``LoopbackHTTPServer`` handler wants done with one request.
package struct LoopbackHTTPReply: Sendable {
    /// The response; `nil` closes the connection without an answer, as a dropped connection would.
    package var response: LoopbackHTTPResponse?
    /// Whether the connection is closed after the response, whatever the client asked for.
    package var closesConnection: Bool
    /// Whether serving ends once the response is written (or could not be):
    /// ``LoopbackHTTPServer/serve(options:handler:)`` then returns ``LoopbackHTTPServeEnd/finished``.
    /// The connection is then half-closed like any last answer, and what the client still sends is
    /// read and dropped for at most the linger timeout, after serving has returned.
    package var endsServing: Bool

    /// When set, the response's head (announcing the whole body) and only this many bytes of its
    /// body are written, then the connection is closed: a connection lost in the middle of an answer.
    package var bodyBytesWritten: Int?

    /// A reply with every field given.
    package init(
        response: LoopbackHTTPResponse?, closesConnection: Bool = false, endsServing: Bool = false,
        bodyBytesWritten: Int? = nil
    ) {
        self.response = response
        self.closesConnection = closesConnection
        self.endsServing = endsServing
        self.bodyBytesWritten = bodyBytesWritten
    }

    /// Answer with `response` and keep serving.
    package static func respond(_ response: LoopbackHTTPResponse) -> LoopbackHTTPReply {
        LoopbackHTTPReply(response: response)
    }

    /// Close the connection without an answer.
    ///
    /// HTTP clients send a request again by themselves when a connection they reused closes
    /// before any byte of the answer (libcurl and URLSession do); use ``cutShort(_:)`` to make a
    /// client see a lost connection.
    package static let drop = LoopbackHTTPReply(response: nil, closesConnection: true)

    /// Write the head of `response` and none of its body, then close: the client sees the
    /// connection lost in the middle of the answer, and does not send the request again.
    package static func cutShort(_ response: LoopbackHTTPResponse) -> LoopbackHTTPReply {
        LoopbackHTTPReply(response: response, closesConnection: true, bodyBytesWritten: 0)
    }
}

/// How a ``LoopbackHTTPServer`` handler answers one request. The handler itself runs on the
/// serving thread, so it must be quick and must not block; what has to wait says so here.
package enum LoopbackHTTPAnswer: Sendable {
    /// The reply, ready now: it is written at once, by the serving thread.
    case reply(LoopbackHTTPReply)
    /// After `delay`, `then` is run on the serving thread and its answer taken: a held answer
    /// that waits on no other thread. Stopping the server drains it like any answer in progress.
    case delayed(Duration, @Sendable () -> LoopbackHTTPAnswer)
    /// The reply of `work`, run in a task of its own: only for an answer that has to await
    /// something (a clock a test moves), since the task waits for the Swift concurrency pool. The
    /// task is cancelled when the connection is closed or serving ends.
    case awaiting(@Sendable () async -> LoopbackHTTPReply)
}

/// How serving ended without an error.
package enum LoopbackHTTPServeEnd: Sendable, Equatable {
    /// ``LoopbackHTTPServer/stop()`` was called (or the serving task was cancelled), and the
    /// requests being answered then were finished or the drain timeout passed.
    case stopped
    /// A reply with ``LoopbackHTTPReply/endsServing`` was written.
    case finished
}

/// How many connections a ``LoopbackHTTPServer`` has open, and has accepted since serving started.
package struct LoopbackHTTPConnectionCounts: Sendable, Equatable {
    /// Connections open now.
    package var open = 0
    /// Connections accepted since serving started, including those closed at once for being over
    /// the maximum.
    package var accepted = 0
}
