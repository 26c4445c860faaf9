import Foundation

/// Which protocol a state's next action speaks, and what it needs to speak it. V1 needs nothing
/// but the continuation token the ``StateCore`` holds; V2 needs the links the last answer gave.
/// Its only payload is a class reference, so a value is one reference or none.
enum StepEngine: Sendable {
    case v1
    case v2(V2StepContext)

    /// A journey's steps for this protocol: `v1`, or `v2` made with the state's links. Each
    /// journey's states ask for theirs through this one switch.
    func steps<Steps>(v1: @autoclosure () -> Steps, v2: (V2StepContext) -> Steps) -> Steps {
        switch self {
        case .v1: v1()
        case .v2(let context): v2(context)
        }
    }
}

/// What a V2 state follows next: the links of the answer that made it, each already checked by
/// the resolver, by relation (`verify`, `resend`, `recover`, `update`, `activate`,
/// `submitAttributes`, or ``challengeRelation(_:)`` and ``enrollRelation(_:)`` for the methods of
/// a state that offers several). Never shown: a state's description names none of them.
/// A class: it never changes once built (``submitting(_:)`` and ``adding(_:as:)`` make a new
/// one), and the states and steps that hold it share it rather than copy its fields.
final class V2StepContext: Sendable {
    /// The checked links, by relation.
    let links: [String: V2Link]
    /// The method in play (opaque).
    let methodId: String?
    /// A sign-up's attributes sent so far, lowercased: the server asking for one again ends the
    /// flow ("attribute already submitted").
    let submitted: Set<String>

    init(links: [String: V2Link], methodId: String? = nil, submitted: Set<String> = []) {
        self.links = links
        self.methodId = methodId
        self.submitted = submitted
    }

    /// These links, with `submitted` as the attributes sent so far.
    func submitting(_ submitted: Set<String>) -> V2StepContext {
        V2StepContext(links: links, methodId: methodId, submitted: submitted)
    }

    /// These links and `link` under `relation`.
    func adding(_ link: V2Link, as relation: String) -> V2StepContext {
        var links = links
        links[relation] = link
        return V2StepContext(links: links, methodId: methodId, submitted: submitted)
    }

    /// The relation a method's `challenge` link is kept under, in a state that offers several
    /// methods: `challenge:` and the method's id.
    static func challengeRelation(_ methodId: String) -> String { "challenge:\(methodId)" }

    /// The relation a method's `enroll` (or `register`) link is kept under.
    static func enrollRelation(_ methodId: String) -> String { "enroll:\(methodId)" }

    /// The link of `relation`; a missing one is an unexpected answer, and nothing is sent.
    @inline(never)
    func link(_ relation: String, flow: FlowContext) throws(FlowError) -> V2Link {
        guard let link = links[relation] else {
            throw flow.unexpectedV2(missing: "_links.\(relation)")
        }
        return link
    }

    /// The link of a method the state offered under `relation(id)`; a method the server did not
    /// offer is refused before anything is sent, and the state stays usable.
    @inline(never)
    func link(of method: AuthMethod, _ relation: (String) -> String, flow: FlowContext) throws(FlowError) -> V2Link {
        guard let link = links[relation(method.id)] else {
            throw flow.fail(.invalidArgument, note: "The server did not offer this method; nothing was sent.")
        }
        return link
    }
}
