import AuthCrypto
import Foundation
import NativeAuth

/// Signs ID tokens for tests with a fixed 2048-bit RSA key (made once with `openssl genrsa`; its
/// private members are here so tests can sign any claims a hostile provider might send). Signing
/// goes by the CRT (``RSAPrivateKey``), a quarter of the work of raising to d modulo n: many suites
/// sign on their test's own thread, and under ThreadSanitizer a signature with d alone held a
/// thread of the two-thread concurrency pool for a quarter of a second.
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

    /// The primes and CRT members of the same key (RFC 8017 §3.2), p > q.
    static let prime1Hex =
        "dd025f0a856a98760b56571c2a8f586241be7ecd3bb5bed33eaa04731ee60ec3c47a42f371509c710900030e23bdf91363c97d6192b70186af40e5a19bf627e19ca7ac782d5a555b3ef58acdca722b89f5b7f3bf18ccb14b10f1c6fda27d6c43415155426d6246a3d87304051acc660b5aa372c9c526aec45339f2d185e6274b"
    static let prime2Hex =
        "d64bde54a813903505907315d3373bd06d17de7b5e5d20dee85b182b69068a4b3b3388b360340359a35591b64b9af2b600b5501d891d231c56d9054add9edd5b968ed5d12e0266d7845dd63599118eb1cbfbdc5330931a8f89500b8ab3d501e2a810410111e4df20b00dc3a2f5540a3e2e5ee7877b968612db7f1caa544248e3"
    static let exponent1Hex =
        "d8eb2ee560b59316a96200f5c040197bb71385d96235ac2a22633522d8bcecd8f0cb1f535970c95b987dce81de4ae361489bc6d831ec352f406bedf684e1419b8aea77b92caa7104b1f2c65dddc9d939fb56a5827690d1a2dfeaae68db47472f6bb8ac7a1a6a4ef319cb29b2e8ee9d699f78b57d9c67af393a86b1f13bfefda9"
    static let exponent2Hex =
        "a0b3404507cdb3e4af0985e42602538e9760c0ec8ef5138355878a767349fe47305c12f540fd804da618b32e9b3fd526fb1cfcb9496b5a3b143da6a45fd19479ec4bacb832e28630b408926c9b1ef97d0755160224790bfffb9ed528ec769df554c6eb985bcce02e6917c94fd8dd6ed8f67920f30e90f0760fb820ccf266cab5"
    static let coefficientHex =
        "5118a34bb09fc838a363d11a2bd3b6c62c999ce1d13c763b338e6550736e3df3ed8f650ed294914c324b1679754db702a51c1045db7468043ce314bcbf1a876a5f1ad156a4bf4458965b7b0c8f5b1cf2dbe96e695662f5664be91a0ffc79b193c802f2904134336ab8ea845bd573188116b327d40b9137e85d5ba0da4969bbf1"

    /// The key, checked once by ``RSAPrivateKey``; `nil` only if the members above were damaged.
    static let key: RSAPrivateKey? = try? RSAPrivateKey(
        modulus: modulus, publicExponent: [1, 0, 1], privateExponent: bytes(privateExponentHex),
        prime1: bytes(prime1Hex), prime2: bytes(prime2Hex), exponent1: bytes(exponent1Hex),
        exponent2: bytes(exponent2Hex), coefficient: bytes(coefficientHex))

    /// The key in PKCS #1 DER, for a test that hands a private key to the SDK (a client's
    /// assertion key).
    public static var pkcs1DER: [UInt8] { key?.pkcs1DER ?? [] }

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
        guard let signatureBytes = try? key?.signSHA256(Array(input.utf8)) else { return input + ".invalid" }
        return input + "." + base64URL(Data(signatureBytes))
    }
}
