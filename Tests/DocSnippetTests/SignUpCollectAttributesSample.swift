// swift-format-ignore-file: OrderedImports
// snippet: sign-up-collect-attributes
import Foundation

func collectAttributes(_ required: [RequiredAttribute], on state: SignUpAttributesRequiredState) async throws
    -> SignUpResult?
{
    let maxAttempts = 3
    for _ in 1...maxAttempts {
        var attributes = UserAttributes()
        for attribute in required {
            let input = ask("\(attribute.name)\(attribute.isRequired ? "" : " (optional)"):")
            if input.isEmpty { continue }
            if let regex = attribute.regex, input.range(of: "^(?:\(regex))$", options: .regularExpression) == nil {
                print("That does not look right; the server will check it.")
            }
            switch attribute.type.lowercased() {
            case "boolean": attributes[attribute.name] = .bool(["yes", "true"].contains(input.lowercased()))
            case "int", "integer": attributes[attribute.name] = Int(input).map(UserAttributeValue.int) ?? .string(input)
            default: attributes[attribute.name] = .string(input)
            }
        }
        do {
            return try await state.submitAttributes(attributes)
        } catch {
            guard error.isInvalidAttributes else { throw error }
            print("Please check: \(error.invalidAttributes.joined(separator: ", ")).")
        }
    }
    print("Too many refused values. Start again.")
    return nil
}
// snippet: end

// The sample imports Foundation for `range(of:options:)`; the file needs NativeAuth as well.
import NativeAuth
