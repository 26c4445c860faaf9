import AuthCrypto
import Foundation
import NativeAuth

/// Signs ID tokens for tests with a fixed 2048-bit RSA key (made once with `openssl genrsa`; its
/// private exponent is here so tests can sign any claims a hostile provider might send).
public enum WebTestSigner: Sendable {
    public static let modulusHex =
        "b9017b15c7e8f2dea0571769987d0fa2a2693320d3741c99bd25de48b9260fb951cc96f9d6479be2d5fd29844bb9d9c28c02123c6dcaff8d291547951d0eb6114c116b98e389b17231bdc76df16bf6f0c9d8fd47b0792c07df1faac970bc20a51692469a92fe60d674706db4b883a8f80ebfe4c59d639e76577b69100c623b69e0e07733ad70b5d5d6bf1ccf95ce9e77b5c689621597991781cc31a928ee850700ebe959e880dc89e1d09f3e0093a2315c141e0da15d43ad14bb9e63de3d75801b7c0ff75088addf92b10f6978d147641a129b3b52b987a75e101ae782ce675657801a7ef834a21425c20918d2399ba643f69fbb6c9a27f430f8937b3377ef81"
    public static let privateExponentHex =
        "172358c60a1917db0119b35b690f6717b3914dac32d60847b010dee2a08962990e6274956d97ca26ce159a0e2a3c65c03fab78a56723e6df3c3ea593c02d19574378c048c05875c16ef829cb95d0a773490362f606dbb8c68940d826d67b28e80cd121946e82f3108f428a6dfa4fb91fc1147de3bb41fccd1736df967abe04690c9e07ae8c8c04dccf1eb5827143bc2912eb91d06412deef0eb1ec6f4660cba6da5ceef0f994757282994f5f91ead26a615c22d5985ce46d69140f3284fbce0288333ebb7d78d0028972d17f81f58f8c76b4f05ac3091e84470ef31d381e8f355fe860286200edb5b558b67b0843869953e67e11ffc763fe824bf851c4d53cfb"

    public static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        if hex.count % 2 == 1 {
            result.append(UInt8(String(hex[index]), radix: 16) ?? 0); index = hex.index(after: index)
        }
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return result
    }

    public static let modulus = bytes(modulusHex)

    /// The key as a JWK Set, with `kid`.
    public static func jwks(kid: String = "test-key") -> String {
        let n = base64URL(Data(modulus))
        return
            "{\"keys\":[{\"kty\":\"RSA\",\"use\":\"sig\",\"alg\":\"RS256\",\"kid\":\"\(kid)\",\"n\":\"\(n)\",\"e\":\"AQAB\"}]}"
    }

    /// A compact JWS over `claims` (a JSON object text), with `header` (JSON object text).
    public static func token(
        claims: String, header: String = "{\"alg\":\"RS256\",\"kid\":\"test-key\",\"typ\":\"JWT\"}"
    )
        -> String
    {
        let input = base64URL(Data(header.utf8)) + "." + base64URL(Data(claims.utf8))
        let digest = SHA256.hash(Array(input.utf8))
        guard let encoded = RSASignature.expectedEncoding(digest: digest, length: modulus.count),
            let signature = BigUInt(bigEndian: encoded).power(
                BigUInt(bigEndian: bytes(privateExponentHex)), modulus: BigUInt(bigEndian: modulus)),
            let signatureBytes = signature.bigEndianBytes(count: modulus.count)
        else { return input + ".invalid" }
        return input + "." + base64URL(Data(signatureBytes))
    }
}
