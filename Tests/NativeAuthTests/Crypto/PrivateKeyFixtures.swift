/// Private keys for the signing tests.
enum PrivateKeyFixtures {
    // MARK: RFC 7515 Appendix A.2 (JWS using RSASSA-PKCS1-v1_5 SHA-256): the key's private JWK members.
    // Its `n` and `e` are SignatureFixtures.rfc7515Modulus and "AQAB"; the signature of the example's
    // signing input is SignatureFixtures.rfc7515Token's third part.

    /// The A.2 key's `d`.
    static let rfc7515PrivateExponent = [
        "Eq5xpGnNCivDflJsRQBXHx1hdR1k6Ulwe2JZD50LpXyWPEAeP88vLNO97IjlA7_GQ5sLKMgvfTeXZx9SE-7YwVol2NXOoAJe46su",
        "i395IW_GO-pWJ1O0BkTGoVEn2bKVRUCgu-GjBVaYLU6f3l9kJfFNS3E0QbVdxzubSu3Mkqzjkn439X0M_V51gfpRLI9JYanrC4D4",
        "qAdGcopV_0ZHHzQlBjudU2QvXt4ehNYTCBr6XCLQUShb1juUO1ZdiYoFaFQT5Tw8bGUl_x_jTj3ccPDVZFD9pIuhLhBOneufuBiB",
        "4cS98l2SR_RQyGWSeWjnczT0QU91p1DhOVRuOopznQ",
    ].joined()

    /// The A.2 key's `p`.
    static let rfc7515Prime1 = [
        "4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH_5IB3jw3bcxGn6QLvnEtfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw_Py5PJdTJNPY8",
        "cQn7ouZ2KKDcmnPGBY5t7yLc1QlQ5xHdwW1VhvKn-nXqhJTBgIPgtldC-KDV5z-y2XDwGUc",
    ].joined()

    /// The A.2 key's `q`.
    static let rfc7515Prime2 = [
        "uQPEfgmVtjL0Uyyx88GZFF1fOunH3-7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYsp1ZSe7zFYHj7C6ul7TjeLQeZD_YwD66t",
        "62wDmpe_HlB-TnBA-njbglfIsRLtXlnDzQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdc",
    ].joined()

    /// The A.2 key's `dp`.
    static let rfc7515Exponent1 = [
        "BwKfV3Akq5_MFZDFZCnW-wzl-CCo83WoZvnLQwCTeDv8uzluRSnm71I3QCLdhrqE2e9YkxvuxdBfpT_PI7Yz-FOKnu1R6HsJeDCj",
        "n12Sk3vmAktV2zb34MCdy7cpdTh_YVr7tss2u6vneTwrA86rZtu5Mbr1C1XsmvkxHQAdYo0",
    ].joined()

    /// The A.2 key's `dq`.
    static let rfc7515Exponent2 = [
        "h_96-mK1R_7glhsum81dZxjTnYynPbZpHziZjeeHcXYsXaaMwkOlODsWa7I9xXDoRwbKgB719rrmI2oKr6N3Do9U0ajaHF-NKJnw",
        "gjMd2w9cjz3_-kyNlxAr2v4IKhGNpmM5iIgOS1VZnOZ68m6_pbLBSp3nssTdlqvd0tIiTHU",
    ].joined()

    /// The A.2 key's `qi`.
    static let rfc7515Coefficient = [
        "IYd7DHOhrWvxkwPQsRM2tOgrjbcrfvtQJipd-DlcxyVuuM9sQLdgjVk2oy26F0EmpScGLq2MowX7fhd_QJQ3ydy5cY7YIBi87w93",
        "IKLEdfnbJtoOPLUW0ITrJReOgo1cq9SbsxYawBgfp_gh6A5603k2-ZQwVK0JKSHuLFkuQ3U",
    ].joined()

    /// The A.2 key as DER PKCS #1 `RSAPrivateKey`, hex: built from the members with `openssl asn1parse
    /// -genconf`, accepted by `openssl rsa -check`, and written back unchanged by `openssl rsa -traditional
    /// -outform DER` (OpenSSL 3.0).
    static let rfc7515PKCS1DER = [
        "308204a30201000282010100a1f8160ae2e3c9b465ce8d2d656263362b927dbe29e1f02477fc1625cc90a136e38bd93497c5",
        "b6ea63dd7711e67c7429f956b0fb8a8f089adc4b69893cc1333f53edd019b87784252fec914fe4857769594bea4280d32c0f",
        "55bf62944f130396bc6e9bdf6ebdd2bda3678eeca0c668f701b38dbffb38c8342ce2fe6d27fade4a5a4874979dd4b9cf9ade",
        "c4c75b05852c2c0f5ef8a5c1750392f944e8ed64c110c6b647609aa4783aeb9c6c9ad755313050638b83665c6f6f7a82a396",
        "702a1f641b82d3ebf2392219491fb686872c5716f50af8358d9a8b9d17c340728f7f87d89a18d8fcab67ad84590c2ecf7593",
        "39363c07034d6f606f9e21e05456cae5e9a102030100010282010012ae71a469cd0a2bc37e526c4500571f1d61751d64e949",
        "707b62590f9d0ba57c963c401e3fcf2f2cd3bdec88e503bfc6439b0b28c82f7d3797671f5213eed8c15a25d8d5cea0025ee3",
        "ab2e8b7f79216fc63bea562753b40644c6a15127d9b2954540a0bbe1a30556982d4e9fde5f6425f14d4b713441b55dc73b9b",
        "4aedcc92ace3927e37f57d0cfd5e7581fa512c8f4961a9eb0b80f8a80746728a55ff46471f3425063b9d53642f5ede1e84d6",
        "13081afa5c22d051285bd63b943b565d898a05685413e53c3c6c6525ff1fe34e3ddc70f0d56450fda48ba12e104e9deb9fb8",
        "1881e1c4bdf25d9247f450c865927968e77334f4414f75a750e139546e3a8a739d02818100e01cc410eb48a6655d54464d0a",
        "a4bb6da0b872b774a6a9d11ffe480778f0ddb7311a7e902ef9c4b5f75476262ba8176cb35979f014372a1a2829e4136bd001",
        "d07c3f3f2e4f25d4c934f63c7109fba2e67628a0dc9a73c6058e6def22dcd50950e711ddc16d5586f2a7fa75ea8494c18083",
        "e0b65742f8a0d5e73fb2d970f0194702818100b903c47e0995b632f4532cb1f3c199145d5f3ae9c7dfeedc7a92a6b47e29c6",
        "1b42a07aa95a64fc600999c5a7b01e01c08cb62ca756527bbcc56078fb0baba5ed38de2d07990ff6300faeadeb6c039a97bf",
        "1e507e4e7040fa78db8257c8b112ed5e59c3cd092fe5d4e5b51275d41281072a5e785ebaf3dae3709203133f5159d7028180",
        "07029f577024ab9fcc1590c56429d6fb0ce5f820a8f375a866f9cb430093783bfcbb396e4529e6ef52374022dd86ba84d9ef",
        "58931beec5d05fa53fcf23b633f8538a9eed51e87b097830a39f5d92937be6024b55db36f7e0c09dcbb72975387f615afbb6",
        "cb36bbabe7793c2b03ceab66dbb931baf50b55ec9af9311d001d628d0281810087ff7afa62b547fee0961b2e9bcd5d6718d3",
        "9d8ca73db6691f38998de78771762c5da68cc243a5383b166bb23dc570e84706ca801ef5f6bae6236a0aafa3770e8f54d1a8",
        "da1c5f8d2899f082331ddb0f5c8f3dfffa4c8d97102bdafe082a118da6633988880e4b55599ce67af26ebfa5b2c14a9de7b2",
        "c4dd96abddd2d2224c7502818021877b0c73a1ad6bf19303d0b11336b4e82b8db72b7efb50262a5df8395cc7256eb8cf6c40",
        "b7608d5936a32dba174126a527062ead8ca305fb7e177f409437c9dcb9718ed82018bcef0f7720a2c475f9db26da0e3cb516",
        "d084eb25178e828d5cabd49bb3161ac0181fa7f821e80e7ad37936f9943054ad092921ee2c592e4375",
    ].joined()

    // MARK: Produced with OpenSSL 3.0 when the tests were written (`openssl genrsa 2048`, `openssl dgst -sha256 -sign`)

    /// A fresh 2048-bit key (e = 65537), as `openssl rsa -traditional -outform DER` writes it, hex.
    static let opensslPKCS1DER = [
        "308204a40201000282010100f2de3b85d308bbf449829c6cfbd8a518b7cefbf2ef42c49b10f8098026ece76ffa24eeecae62",
        "456a7907c215634c741022beb955c2f6dcca93977b46f69335634f364245f713b8065515518f7062576aa40b0be65891eb51",
        "dfc23a79f28cb1446ef9ae34649dee89c59a66c7849b563058f7374a09e2fe60a6908d72f732e91747df8898e0c868ae9fd2",
        "7470669d7ad9dff00da0a1722afa28aa8eb295ff50b2d8b11a941a3135f9fc3aed33694ba50efc48a67585d2497bffae452e",
        "5c2521d8377b0ddf23aca3e3f1d339a25272bb3f2206e11c4434ae88cc3d88d71a858249205e9cc47695f715cffee4875755",
        "e6e21637aa7521ffc528de37fc8558f4cd770203010001028201006dea973ccb5466203acec275ee8b4fb8fea34e52d5e73d",
        "6cc2c2c725f937f9ccab84e09f3c931c408253390b0dfc5180e600b487746bde644e64ddf5b16dd1594745d2bbb0857ba15e",
        "0b7e74b113c8e56a25d7b661fa746a831ef7f12e0d6fc2fd88c1c7538c48a390cb7edda88dd6f59da6111f50972bb259600d",
        "ac6ce55d28faf8a952aa6ccffeb1ddce0bbda326ca52124159599675c4bc13897db6ceb879d1e240ce97f70312c14a10969e",
        "76764f2794a71c897e6cdbe9186bf2034a85f0da4b3337ec4ea24c13ba149d86b2f740ccca9b4d8ff0c291e5a898f6885142",
        "168a36db46a244124b2fe6c27b19dd86cb90af696645bbca33a6576b9f02f1899102818100fb42e3f600b01774ad332a5a2b",
        "2a338a18737a593257159521b9ad08630bf7fe52f2519285256dd5e1e788ba5dd5f2a8b4091bc84378443552d0854ddf1708",
        "ee46e37c46fcbca84e4e80194db5aeea71e81cc0920647dd9f32e5037f641dfcd354fb678eaba4ea3ab9a01a887c9e854f80",
        "4e5fb1279a900775e76f901a1111a702818100f772d1ab85810e25671fa21c1aa2da71d586389d1c394f83a01888221b66c4",
        "3adb4dc5ffe595da08fd5daf9dfb1080123561ead782e972990bb1357760c792445140114593206a2d1608a45de352ce5280",
        "656b94b23e0bf4b369565bce35e3b89ac0b0bcb88e47e070f51cac5374535154be3a16be7724b179d38c4d78a4bfb1028180",
        "1e887663429a237f8e3c957cf799dd417ecf29a3053707ec6378c8ca281f2037cba49ebd0b690cfbdcc3e21da3a188277019",
        "5b42eed00299e84266b09bd794c23fe30d0b235359b08a618eb19ece6eb700d9dd9ce11e829401ff4a79849510502e178ef2",
        "0b71b2f507f1a8c7c53d0e3e26fd5f2b8c00805827bfc412e2d8082902818100a906ee804aa6b862064a4e730222e232c617",
        "744ea5bbe43bd63d4ba878ad3f37b11c343733bda3fd660cfbec5f568b15650fa8da63db516387e019d49cf056528269d022",
        "8578abee76519aed635de9ffe322e454e3588cd42f45b22eedf253c6833742c2f71281b8a7905770c364ff90dbe1414ecdf6",
        "16c380a36800777b9a5102818100d563aaf382aaf8f53ed7f06bdf7673ce4b62ee9aff1e440fbda3f50d6480fffb9a5a29cd",
        "a379b06aef4e52718ce40c7da5d5a4b40b5569ea71c8b9b65c332a50ceba9128fb80749e7c66c592b804c40d466b08caa144",
        "32273d5c8b78186971f2ec2ff4009c0f60af328a1332767acfc62bedfe764e6ed06ff07308c320eb7115",
    ].joined()

    /// The message that key signed.
    static let opensslMessage = "DPoP proof signing input"

    /// Its RS256 signature of ``opensslMessage``, hex.
    static let opensslSignature = [
        "63183fd9d7ef06ce1753907e8637a31269452a3f12f7f4af183f795f4ff7b695d7b1a696d105fffafd04c882601ff56461d1",
        "01ddc5e1bb39ff0b68aeb7c07b22338d92b15dbcbfc43c28f2b4085c9ab2bf8bd7695545c589c10fd99722cc175d7a95497e",
        "5b187184fad442f7e52fb9bf97fb4b366c971501fb363ed151dfde7da5828334e539704ccc17389fb79a2f7721894512d11d",
        "c4b6d783c1ec7298db60d5980b6d3cdf0e4f125c8d1db6ec3d786d2a68f67085e60e2ee0ee4d2534e8ae9ed6d1d2b0484890",
        "406887bab0d3f79cb42ab629fee1a2f437a7ae7cd2b211086f74b4895af4516d78eb0efa0b8159dfc5e3e1ca4794fe9bd38c",
        "ccfcc54dd557",
    ].joined()
}
