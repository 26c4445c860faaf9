/// What the user typed at a code prompt.
enum CodeAnswer {
    /// A code to submit.
    case code(String)
    /// "r": send a new code.
    case resend
    /// "c": give up and go back to the menu.
    case cancel
}

/// The questions the demo asks. Each one asks again, with a short explanation, until the answer
/// makes sense, ``maximumTries`` times at most; each throws ``EndOfInput`` when standard input ends,
/// or when it gives up (``EndOfInput/gaveUp``).
enum Prompt {
    /// How many answers the demo takes for one question, and how many times it lets the server
    /// refuse one step (a wrong code, a refused password or value), before it gives up: plenty for
    /// a person, and an end for a script that keeps sending the same answer.
    static let maximumTries = 5

    /// Says that a question got too many answers that do not fit, and gives up on it.
    static func gaveUp() -> EndOfInput {
        Terminal.say("   Too many answers that do not fit; back to the menu.")
        return EndOfInput(gaveUp: true)
    }

    /// Asks for a line of text that is not empty.
    static func text(_ question: String) throws(EndOfInput) -> String {
        for _ in 1...maximumTries {
            let answer = try Terminal.read(question)
            if !answer.isEmpty { return answer }
            Terminal.say("   Please type an answer (Ctrl-D quits).")
        }
        throw gaveUp()
    }

    /// Asks for an email address until it has the basic shape of one (see ``EmailAddress``), so
    /// that a typo is caught before anything else is asked.
    static func email(_ question: String) throws(EndOfInput) -> String {
        for _ in 1...maximumTries {
            let answer = try text(question)
            guard let problem = EmailAddress.problem(with: answer) else { return answer }
            Terminal.say("   That does not look like an email address: \(problem).")
        }
        throw gaveUp()
    }

    /// Asks for a password, hidden when possible; an empty one is refused.
    static func password(_ question: String) throws(EndOfInput) -> String {
        for _ in 1...maximumTries {
            let answer = try Terminal.readSecret(question)
            if !answer.isEmpty { return answer }
            Terminal.say("   The password cannot be empty.")
        }
        throw gaveUp()
    }

    /// Asks for a password, hidden when possible; an empty answer means none (`nil`).
    static func optionalPassword(_ question: String) throws(EndOfInput) -> String? {
        let answer = try Terminal.readSecret(question)
        return answer.isEmpty ? nil : answer
    }

    /// Asks for a whole number in `range`.
    static func number(_ question: String, in range: ClosedRange<Int>) throws(EndOfInput) -> Int {
        let hint = "enter a number from \(range.lowerBound) to \(range.upperBound)."
        for _ in 1...maximumTries {
            let answer = try Terminal.read(question)
            if let value = Int(answer), range.contains(value) { return value }
            switch (answer.isEmpty, Int(answer)) {
            case (true, _): Terminal.say("   Please \(hint)")
            case (false, nil): Terminal.say("   '\(answer)' is not a number: \(hint)")
            default: Terminal.say("   \(answer) is not a choice: \(hint)")
            }
        }
        throw gaveUp()
    }

    /// Asks a yes-or-no question; an empty answer means `defaultAnswer`.
    static func yesNo(_ question: String, default defaultAnswer: Bool) throws(EndOfInput) -> Bool {
        let hint = defaultAnswer ? "[Y/n]" : "[y/N]"
        for _ in 1...maximumTries {
            switch try Terminal.read("\(question) \(hint): ").lowercased() {
            case "": return defaultAnswer
            case "y", "yes": return true
            case "n", "no": return false
            default: Terminal.say("   Please answer y or n.")
            }
        }
        throw gaveUp()
    }

    /// Lets the user pick one of `options`, or 0 to cancel (`nil`).
    static func choose<Option>(_ title: String, from options: [Option], label: (Option) -> String) throws(EndOfInput)
        -> Option?
    {
        Terminal.say(title)
        for (index, option) in options.enumerated() {
            Terminal.say("   \(index + 1)) \(label(option))")
        }
        Terminal.say("   0) Cancel")
        let choice = try number("Your choice: ", in: 0...options.count)
        return choice == 0 ? nil : options[choice - 1]
    }

    /// Asks for a one-time code sent to `sentTo`; "r" asks for a new one when `canResend`, "c" cancels.
    /// Too many empty answers cancel too.
    static func code(sentTo: String, codeLength: Int?, canResend: Bool = true) throws(EndOfInput) -> CodeAnswer {
        let what = codeLength.map { "the \($0)-digit code" } ?? "the code"
        let options = canResend ? "'r' to resend, 'c' to cancel" : "'c' to cancel"
        for _ in 1...maximumTries {
            let answer = try Terminal.read("Enter \(what) sent to \(sentTo) (\(options)): ")
            switch answer.lowercased() {
            case "":
                Terminal.say("   Please type the code from the email, or 'c' to cancel.")
            case "r" where canResend:
                return .resend
            case "c":
                return .cancel
            default:
                return .code(answer)
            }
        }
        return .cancel
    }
}

/// The basic shape of an email address, checked before a flow starts: `name@domain.tld`, one `@`,
/// no spaces, a domain of dot-separated labels. The server has the last word; this only catches
/// typos early.
enum EmailAddress {
    /// What is wrong with `text` as an email address, or `nil` when it has the shape of one.
    static func problem(with text: String) -> String? {
        if text.isEmpty { return "it is empty" }
        if text.contains(where: { $0.isWhitespace }) { return "it holds a space" }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        if parts.count == 1 { return "it has no @" }
        if parts.count > 2 { return "it has more than one @" }
        let (local, domain) = (parts[0], parts[1])
        if local.isEmpty { return "nothing comes before the @" }
        if domain.isEmpty { return "no domain comes after the @" }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count < 2 { return "the domain '\(domain)' has no dot (such as example.com)" }
        if labels.contains(where: \.isEmpty) { return "the domain '\(domain)' has an empty part between dots" }
        let allowed = { (character: Character) in character.isLetter || character.isNumber || character == "-" }
        if let label = labels.first(where: { !$0.allSatisfy(allowed) || $0.hasPrefix("-") || $0.hasSuffix("-") }) {
            return "the domain part '\(label)' may hold only letters, digits and inner hyphens"
        }
        return nil
    }
}
