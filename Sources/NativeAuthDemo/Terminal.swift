#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Standard input ended (closed pipe, Ctrl-D): the demo stops and exits with status 0. Also thrown
/// by a question that got too many answers that do not fit (``Prompt/maximumTries``), with
/// ``gaveUp`` set: the menu then takes over again.
struct EndOfInput: Error {
    /// Whether a question gave up after too many unusable answers, rather than input ending.
    var gaveUp = false
}

/// Reading and writing the terminal.
///
/// Output goes straight to file descriptor 1, unbuffered, so that a program driving the demo
/// through a pipe sees every prompt and every emailed code at once.
enum Terminal {
    /// Writes `text` as it is, with no newline.
    static func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                Glue.write(1, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }

    /// Writes `line` and a newline.
    static func say(_ line: String = "") {
        write(line + "\n")
    }

    /// Writes an error to standard error.
    static func sayError(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { Glue.write(2, $0.baseAddress, $0.count) }
    }

    /// Shows `prompt` and reads one line, trimmed of surrounding spaces. When input comes from a
    /// pipe, the line is echoed, so that the output reads like a session.
    ///
    /// - Throws: ``EndOfInput`` when standard input has ended.
    static func read(_ prompt: String) throws(EndOfInput) -> String {
        write(prompt)
        guard let line = readLineEndingOutput() else { throw EndOfInput() }
        if !inputIsTerminal { write(line + "\n") }
        return line.trimmingSpaces
    }

    /// Reads one line without its line break. On a terminal, when the line did not end with one
    /// (Ctrl-D after some text, or at once: the end of input), a line break is written, so that
    /// what the demo says next starts on a line of its own.
    private static func readLineEndingOutput() -> String? {
        let line = readLine(strippingNewline: false)
        guard let line, line.hasSuffix("\n") else {
            if inputIsTerminal || line == nil { write("\n") }
            return line
        }
        return String(line.dropLast(line.hasSuffix("\r\n") ? 2 : 1))
    }

    /// Whether standard input is a terminal (and not a pipe or a file).
    static let inputIsTerminal = isatty(0) == 1

    /// Asks `question` and reads one line that is never shown: on a terminal, echo is turned off
    /// while it is typed (when the terminal allows it; the prompt says so); from a pipe, it is not
    /// echoed. The line is returned as typed, since a password may start or end with a space.
    ///
    /// - Throws: ``EndOfInput`` when standard input has ended.
    static func readSecret(_ question: String) throws(EndOfInput) -> String {
        let line: String?
        if !inputIsTerminal {
            write("\(question): ")
            line = readLine(strippingNewline: true)
            write("\n")
        } else if EchoGuard.turnEchoOff() {
            write("\(question) (input is hidden): ")
            line = readLine(strippingNewline: true)
            EchoGuard.restore()
            write("\n")  // the typed line break was not echoed either
        } else {
            write("\(question) (input is visible): ")
            line = readLineEndingOutput()
        }
        guard let line else { throw EndOfInput() }
        return line
    }
}

/// The C functions the demo calls, under names that do not clash with Swift's.
private enum Glue {
    static func write(_ descriptor: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, pointer, count)
        #elseif canImport(Musl)
            Musl.write(descriptor, pointer, count)
        #else
            Darwin.write(descriptor, pointer, count)
        #endif
    }
}

/// Turns terminal echo off while a password is typed, and back on afterwards, also when the
/// user presses Ctrl-C at the prompt.
private enum EchoGuard {
    // Written only on the thread that reads input, before the signal handler that reads it is
    // installed; the handler only reads it. Plain C state is what a signal handler can touch.
    nonisolated(unsafe) static var saved = termios()
    nonisolated(unsafe) static var active = false

    static func turnEchoOff() -> Bool {
        guard tcgetattr(0, &saved) == 0 else { return false }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        active = true
        Interrupt.install()
        guard tcsetattr(0, TCSANOW, &quiet) == 0 else {
            restore()
            return false
        }
        return true
    }

    static func restore() {
        tcsetattr(0, TCSANOW, &saved)
        active = false
        Interrupt.uninstallUnlessKept()
    }
}

/// Ctrl-C at a prompt: the terminal's echo is restored if a password was being typed, the line is
/// ended, so that the shell's prompt does not follow the demo's on the same line, and the demo
/// exits with status 130 (the shell's convention for SIGINT).
enum Interrupt {
    /// Set once, before the handler is installed for the whole run; read by ``uninstallUnlessKept()``.
    nonisolated(unsafe) private static var kept = false

    /// Installs the handler for the rest of the run (the interactive menu).
    static func installForRun() {
        kept = true
        install()
    }

    fileprivate static func install() {
        signal(SIGINT) { _ in
            if EchoGuard.active { tcsetattr(0, TCSANOW, &EchoGuard.saved) }
            var newline: UInt8 = 10
            _ = Glue.write(1, &newline, 1)
            _exit(130)
        }
    }

    fileprivate static func uninstallUnlessKept() {
        if !kept { signal(SIGINT, SIG_DFL) }
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and line breaks.
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
