/// Signed tokens and keys for the RS256 tests. Every signature here was checked independently
/// (Python's `pow` and a hand-built EMSA-PKCS1-v1_5 encoding) when the fixture was written.
enum SignatureFixtures {
    // MARK: RFC 7515 Appendix A.2 (JWS using RSASSA-PKCS1-v1_5 SHA-256)

    /// The A.2 key's modulus (`n`); its exponent is "AQAB".
    static let rfc7515Modulus = [
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yR",
        "T-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXB",
        "dQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9ia",
        "GNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ",
    ].joined()

    /// The A.2 compact serialization: header {"alg":"RS256"}, the "joe" claims with CRLFs.
    static let rfc7515Token = [
        "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19",
        "yb290Ijp0cnVlfQ.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt",
        "_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb",
        "1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI",
        "8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw",
    ].joined()

    // MARK: RFC 7520 §4.1 (RSA v1.5 signature), from the RFC author's ietf-jose/cookbook repository

    /// The "bilbo.baggins@hobbiton.example" key's modulus (RFC 7520 §3.3, Figure 3); exponent "AQAB".
    static let rfc7520Modulus = [
        "n4EPtAOCc9AlkeQHPzHStgAbgs7bTZLwUBZdR8_KuKPEHLd4rHVTeT-O-XV2jRojdNhxJWTDvNd7nqQ0VEiZQHz_AJmSCpMaJMRB",
        "SFKrKb2wqVwGU_NsYOYL-QtiWN2lbzcEe6XC0dApr5ydQLrHqkHHig3RBordaZ6Aj-oBHqFEHYpPe7Tpe-OfVfHd1E6cS6M1FZcD",
        "1NNLYD5lFHpPI9bTwJlsde3uhGqC0ZCuEHg8lhzwOHrtIQbS0FVbb9k3-tVTU4fg_3L_vniUFAKwuCLqKnS2BYwdq_mzSnbLY7h_",
        "qixoR7jig3__kRhuaxwUkRz5iaiQkqgc5gHdrNP5zw",
    ].joined()

    /// RFC 7520 Figure 16: the compact serialization, kid "bilbo.baggins@hobbiton.example".
    static let rfc7520Token = [
        "eyJhbGciOiJSUzI1NiIsImtpZCI6ImJpbGJvLmJhZ2dpbnNAaG9iYml0b24uZXhhbXBsZSJ9.SXTigJlzIGEgZGFuZ2Vyb3VzIGJ",
        "1c2luZXNzLCBGcm9kbywgZ29pbmcgb3V0IHlvdXIgZG9vci4gWW91IHN0ZXAgb250byB0aGUgcm9hZCwgYW5kIGlmIHlvdSBkb24",
        "ndCBrZWVwIHlvdXIgZmVldCwgdGhlcmXigJlzIG5vIGtub3dpbmcgd2hlcmUgeW91IG1pZ2h0IGJlIHN3ZXB0IG9mZiB0by4.MRj",
        "dkly7_-oTPTS3AXP41iQIGKa80A0ZmTuV5MEaHoxnW2e5CZ5NlKtainoFmKZopdHM1O2U4mwzJdQx996ivp83xuglII7PNDi84wn",
        "B-BDkoBwA78185hX-Es4JIwmDLJK3lfWRa-XtL0RnltuYv746iYTh_qHRD68BNt1uSNCrUCTJDt5aAE6x8wW1Kt9eRo4QPocSadn",
        "HXFxnt8Is9UzpERV0ePPQdLuW3IS_de3xyIrDaLGdjluPxUAhb6L2aXic1U12podGU0KLUQSE_oI-ZnmKJ3F4uOZDnd6QZWJushZ",
        "41Axf_fcIe8u9ipH84ogoree7vjbU5y18kDquDg",
    ].joined()

    // MARK: Produced with OpenSSL 3.0 when the tests were written (`openssl genrsa`, `openssl dgst -sha256 -sign`)

    /// A fresh 2048-bit key's modulus (e = 65537).
    static let opensslModulus = [
        "tUmiI5FXTVtqehDVSynrZ2aLp5w2aeAn_ljB-HTXosH-6uwHr1eXhbNNuXFNp8rHpgURqaFs2j6ypT-OyY3Bw7_6am-CO9uICjja",
        "sA0yJ9ur_4xOciIIw-n40pkSSAwazgcVJKPEbEsFy8IfYX5b15hj7Qv7l_IR4IHW6_VNb5Aj2pf3CCxRKCNDldAy-npMs-PZIAyF",
        "VKlZaHnZq3QuR4pgiw9x3B6NF2V6XmJMwxkUyoBLCLxfqBuNPb0ljBq7kZ5YXi4RyvseDOx70_S-Qt2xjncdjr2NXzQ3E2SBrkNK",
        "p3MYhh8BwTQJcRgSx7v24H7bnsLgBYOTlc5iKa4Pjw",
    ].joined()

    /// A token signed by that key: kid "openssl-fixture-1", typ JWT, an ID-token-like payload.
    static let opensslToken = [
        "eyJhbGciOiJSUzI1NiIsImtpZCI6Im9wZW5zc2wtZml4dHVyZS0xIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2xvZ2lu",
        "LmV4YW1wbGUudGVzdC90ZW5hbnQvdjIuMCIsInN1YiI6ImZpeHR1cmUtc3ViamVjdCIsImF1ZCI6ImZpeHR1cmUtY2xpZW50Iiwi",
        "aWF0IjoxNzAwMDAwMDAwLCJleHAiOjE3MDAwMDM2MDAsIm5vbmNlIjoibi0wUzZfV3pBMk1qIn0.Q34H4zOAIEWrpzUmQO3-k1mr",
        "XLs7HnN_zKfolBO5a3fi7swXutajp_TveAKqdvle-o86ecl_gSCoNTI6lN0BA18hq0LF7h_uH75kusK08RNUuEovN52932ioiXfz",
        "wp9J2wCt_pMQNNjkCBQpGBrrU6Rl5xXcrlER7oPuwI88Hduo4kjmU0_IYQ6PjjSANzQGWSMduQlVJXZXZAArJrVnzbMXawaaSpXu",
        "oAOjo3HB60PWTYmc0Tae2Hou6xt3sNWRk3-fyoE8q3zFbZYTBYP4aJAyQvSiwq_Bb82Xlm72kA4w3cP7OV2uN0fTU_okw1d4_DCB",
        "OBDoFWO5UVnZ9XeIkg",
    ].joined()

    /// That key as PKCS #1 DER, hex, from `openssl rsa -RSAPublicKey_out -outform DER`.
    static let opensslPKCS1DER = [
        "3082010a0282010100b549a22391574d5b6a7a10d54b29eb67668ba79c3669e027fe58c1f874d7a2c1feeaec07af579785b3",
        "4db9714da7cac7a60511a9a16cda3eb2a53f8ec98dc1c3bffa6a6f823bdb880a38dab00d3227dbabff8c4e722208c3e9f8d2",
        "9912480c1ace071524a3c46c4b05cbc21f617e5bd79863ed0bfb97f211e081d6ebf54d6f9023da97f7082c5128234395d032",
        "fa7a4cb3e3d9200c8554a9596879d9ab742e478a608b0f71dc1e8d17657a5e624cc31914ca804b08bc5fa81b8d3dbd258c1a",
        "bb919e585e2e11cafb1e0cec7bd3f4be42ddb18e771d8ebd8d5f3437136481ae434aa77318861f01c13409711812c7bbf6e0",
        "7edb9ec2e005839395ce6229ae0f8f0203010001",
    ].joined()

    /// A fresh 4096-bit key with e = 3 (`openssl genrsa -3 4096`): its modulus.
    static let opensslE3Modulus = [
        "xKrnmbccWAh9H3kah-zs7Q69wq81wrENMT5dpGI4pFNaKAj13wNnxteGplpr3353PRjyFuD-QYbdJzpH2H3Gw4NkrlZUrEPckEA0",
        "YkC0i2oqLza00aLiWXqNSOd3FW2XzeODRJOGhWlsSQkmgGlUnnOVw8GMr9-jWOUkKz00kwx4ADCfd8AlCSP4Jpem_Yrf4yiNfm-U",
        "uGnT0RNkymtRvVFjK8Kfpykgi_JvodSmAzPinIqDeJBeT8QP7tqoqrumEIJSQNVaYtFkdVgrjk6HgUDytsutIPV9L3NkTcqBq-AO",
        "YK7WYC2UyCRtlncxq2PyfwTEPtJojxzUGrQFe0fd9FKC3DDXlmTK_fglMbOoBsuB310Qu-3v8RAkBzJ7zEgq64iuETmdoeN4dKSq",
        "ckx5RNEWDRuY5LH-ZTk2X1nqgI2zmk43YGpIT9GwggjhrhuqEW_SJxXRw_6qL3Uq1ZQjlqFuE2qNGxcA7Ij5qncbUtkUZzF6kRgo",
        "b9vfZPlkfTd5ol_yw1WjjJFootvECug_Aj7lETg4FHdocWkKLP9R-70R1oAZiwFZ4tqk3lzLy2hzkm0m3wY3gsIhsZFkKDeIeih2",
        "JOUqKXONQLqAYPhB6uQEc5oeI0CeI6spQSJN_ZhctAk6TVMRUDKnD2PdSfMl3Bb6GJ0ItZxC5bL-KdyX9HM",
    ].joined()

    /// A token signed by the e = 3 key: kid "openssl-fixture-e3".
    static let opensslE3Token = [
        "eyJhbGciOiJSUzI1NiIsImtpZCI6Im9wZW5zc2wtZml4dHVyZS1lMyIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJodHRwczovL2xvZ2l",
        "uLmV4YW1wbGUudGVzdC90ZW5hbnQvdjIuMCIsInN1YiI6ImZpeHR1cmUtc3ViamVjdCIsImF1ZCI6ImZpeHR1cmUtY2xpZW50Iiw",
        "iaWF0IjoxNzAwMDAwMDAwLCJleHAiOjE3MDAwMDM2MDB9.Sb3RhOx5j3Hdww2CAAEdLgL1MEUp02jXm1znxBRnFaZBIs462HClI0",
        "nCuTr7IpnMGTXo-IljqftHTdispuMY-FAKbftvU_DlelueFvCcQARc6-5Ht3aKSxpqZ_557HGKvQaklDgrjp5jxKNj4BjTMO5SKZ",
        "zACzox9cMUfJpEjMppLa3og6M90Iue0QboeaSa7H9zz9vSFiKSNLFzRzwx049qaWFmyeg40JiTNVQNPCAYzFTVWAWbD9UPlfogV_",
        "NsJOevK95duxTQ2WaG4b3Qh67I18sNmJxtuUaiL7tjw0QWjacK0ZLk69A_rICsmk9a0vxeub7yCSRD5M84DnjBMvMqMM-0i3JYzf",
        "R_TIyeeL0gxAhllIrQQEA86ebI3u5k1u3SHTTxQR2kChaFmElDeh8Ksw3O4rmA5lJYtFaYS_dpEe35s3Df0hITvn2QMl-v3IoB8x",
        "ONfJzXLp28RPzf1I-JNawXV6v1eICeT5TqCHi5lg2LlMnmJfOkbUvwd_tuik1cDyuUtlMco89iQX3IeaWHj3JMvvR3kyRnKWm5cU",
        "VNZZa08boE59K8d9J7miTHBgMt6HHR3HEWAhfdxCj5nVy4V0OlCyCXaByK7StavxY6g-LGHxoReHkEgq34gWge8qvLozgfVpugOA",
        "tVMwX5iOYhZYI2qAro5c-MOmZH7B4",
    ].joined()

    /// The e = 3 key as PKCS #1 DER, hex.
    static let opensslE3PKCS1DER = [
        "308202080282020100c4aae799b71c58087d1f791a87ececed0ebdc2af35c2b10d313e5da46238a4535a2808f5df0367c6d7",
        "86a65a6bdf7e773d18f216e0fe4186dd273a47d87dc6c38364ae5654ac43dc9040346240b48b6a2a2f36b4d1a2e2597a8d48",
        "e777156d97cde38344938685696c4909268069549e7395c3c18cafdfa358e5242b3d34930c7800309f77c0250923f82697a6",
        "fd8adfe3288d7e6f94b869d3d11364ca6b51bd51632bc29fa729208bf26fa1d4a60333e29c8a8378905e4fc40feedaa8aabb",
        "a610825240d55a62d16475582b8e4e878140f2b6cbad20f57d2f73644dca81abe00e60aed6602d94c8246d967731ab63f27f",
        "04c43ed2688f1cd41ab4057b47ddf45282dc30d79664cafdf82531b3a806cb81df5d10bbedeff1102407327bcc482aeb88ae",
        "11399da1e37874a4aa724c7944d1160d1b98e4b1fe6539365f59ea808db39a4e37606a484fd1b08208e1ae1baa116fd22715",
        "d1c3feaa2f752ad5942396a16e136a8d1b1700ec88f9aa771b52d91467317a9118286fdbdf64f9647d3779a25ff2c355a38c",
        "9168a2dbc40ae83f023ee511383814776871690a2cff51fbbd11d680198b0159e2daa4de5ccbcb6873926d26df063782c221",
        "b191642837887a287624e52a29738d40ba8060f841eae404739a1e23409e23ab2941224dfd985cb4093a4d53115032a70f63",
        "dd49f325dc16fa189d08b59c42e5b2fe29dc97f473020103",
    ].joined()

    /// A Bleichenbacher (2006) forgery against the e = 3 key: the signature is an integer cube root,
    /// so s³ starts with 00 01 FF×8 00 ‖ DigestInfo ‖ SHA-256(signing input) followed by garbage.
    /// A verifier that parses the DigestInfo and ignores what follows would accept it.
    static let forgedE3Token = [
        "eyJhbGciOiJSUzI1NiIsImtpZCI6Im9wZW5zc2wtZml4dHVyZS1lMyJ9.eyJpc3MiOiJodHRwczovL2xvZ2luLmV4YW1wbGUudGV",
        "zdC90ZW5hbnQvdjIuMCIsInN1YiI6ImF0dGFja2VyIiwiYXVkIjoiZml4dHVyZS1jbGllbnQifQ.AAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABQoovmNcoriIIIyMh6_dLg8VluwZObu0C1w3psbYq4cASA8UH-r3PzH5DjCJThT9LtERG",
        "tqsKZwQLlj0yo4USGH4dCCFQKiWYx57ZQZFySyJlqGDO_25nkfAfiIRrCW5VwSFTGr0AlGVb9j0U_oiY7y9A04DglPBN7eiDZDID",
        "UpyvjeB1zvEKFDC4bKfPdIj3ZmrPCXGVaTFiS7yA-WzmetGYBs8aHIsqkYg",
    ].joined()

    /// A 1024-bit modulus from `openssl genrsa 1024`: too small to accept.
    static let modulus1024 = [
        "9BmBSgZ7gqCPET4bdEtbw8h9aibt8bgMbLSMXHKW_UPHka8-CniES5859nEuFmG_c58LUnH8rco2aiQ5bnHX5kmMFcjo3FdpxXy9",
        "MDPyhw5mW3i_z7UVyjbUTJeldqFM1ITVVthS-2RYh0-WpQL7FwpkoTzE7Pt9lqbNZCIEyFE",
    ].joined()

    /// The key-confusion attack: alg HS256, kid "openssl-fixture-1", MACed with HMAC-SHA256 keyed by
    /// that RSA key's public PKCS #1 DER. A verifier that lets the header pick the algorithm accepts it.
    static let hs256WithPublicKeyToken = [
        "eyJhbGciOiJIUzI1NiIsImtpZCI6Im9wZW5zc2wtZml4dHVyZS0xIn0.eyJpc3MiOiJodHRwczovL2xvZ2luLmV4YW1wbGUudGVz",
        "dC90ZW5hbnQvdjIuMCIsInN1YiI6ImF0dGFja2VyIiwiYXVkIjoiZml4dHVyZS1jbGllbnQifQ.cQaiPM1tCP9zF15Z1YY4fOYah",
        "7vFWNV2iQ7Vl507qKw",
    ].joined()

    /// Signed by the 2048-bit OpenSSL key, with no kid and that key's own JWK embedded in the header.
    static let embeddedJWKToken = [
        "eyJhbGciOiJSUzI1NiIsImp3ayI6eyJrdHkiOiJSU0EiLCJuIjoidFVtaUk1RlhUVnRxZWhEVlN5bnJaMmFMcDV3MmFlQW5fbGpC",
        "LUhUWG9zSC02dXdIcjFlWGhiTk51WEZOcDhySHBnVVJxYUZzMmo2eXBULU95WTNCdzdfNmFtLUNPOXVJQ2pqYXNBMHlKOXVyXzR4",
        "T2NpSUl3LW40MHBrU1NBd2F6Z2NWSktQRWJFc0Z5OElmWVg1YjE1aGo3UXY3bF9JUjRJSFc2X1ZOYjVBajJwZjNDQ3hSS0NORGxk",
        "QXktbnBNcy1QWklBeUZWS2xaYUhuWnEzUXVSNHBnaXc5eDNCNk5GMlY2WG1KTXd4a1V5b0JMQ0x4ZnFCdU5QYjBsakJxN2taNVlY",
        "aTRSeXZzZURPeDcwX1MtUXQyeGpuY2RqcjJOWHpRM0UyU0Jya05LcDNNWWhoOEJ3VFFKY1JnU3g3djI0SDdibnNMZ0JZT1RsYzVp",
        "S2E0UGp3IiwiZSI6IkFRQUIifX0.eyJpc3MiOiJodHRwczovL2xvZ2luLmV4YW1wbGUudGVzdC90ZW5hbnQvdjIuMCIsInN1YiI6",
        "ImF0dGFja2VyIiwiYXVkIjoiZml4dHVyZS1jbGllbnQifQ.MNrRMfoGU6KRQ7G6VwqbJvCq-AhGGaIoKDp3Mg2qd6KGM9pZj4ONQ",
        "znQzVV8AXHLlmnTXAHxwtiUDoeGg2Gsk1gQnIrLFGsgFXoljSRFs-S_L8kbDBK4FwEN9a8fEIvTziWbdrgnvsnlvVOV-xPHs68eB",
        "69tpzzDMmsNOxN_p-Ga-tmrrzJT7dxVTrkiklp0cdGrJOuVZjM0Hzq2iibJ3wl376Et0dPU_xhdvdAyTivyYZhQjcHomViWjolLh",
        "XUMLwTm1YNPtuiASzuJAT1FHokijscy4B9Xiy9H1JJ5Q-_oirnYo2edLzAJ6yLPhXpVQBFcZODu05sfCaNEcVXhKw",
    ].joined()
}

/// Published and independently produced tokens for the algorithms beside RS256.
enum AlgorithmFixtures {
    /// RFC 7515 appendix A.3: the ES256 example key (public part) and token.
    static let rfc7515ES256X = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let rfc7515ES256Y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let rfc7515ES256Token =
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
        + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    /// RFC 8037 appendix A.4: the Ed25519 example key (public part, A.2) and token.
    static let rfc8037X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
    static let rfc8037Token =
        "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc"
        + ".hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"

    /// A PS256 ID token signed by OpenSSL 3.0 (`openssl dgst -sha256 -sigopt rsa_padding_mode:pss
    /// -sigopt rsa_pss_saltlen:32`) with a fresh 2048-bit key, whose modulus this is; kid
    /// "openssl-ps256".
    static let opensslPS256Modulus =
        "qJQt8UN07IvuIfwcMlMoQiFFEehlKN1jvpb2C2tIfwzRjBYPGj9qj5GccS8FRBkeuRNSLZNNAUjmOAZR5RLMF93jEoJeigVKpwIFASs2V06lU5my"
        + "35U8SmytrwWznUt-eq1DkiWbzdQio087DaFXvhat9i38Yfi_bQy5MnHJGtudw4afLKDNtjg2Z0SzQ4AUNZ4HcL0eLxDGAcNEvBURF9NyiTnUgN"
        + "USJEItIOx0Spbtj90AeHeWVuklZqd6gv-JS_5uITeYRaE-IPVSVL-pAeKbayH7ZxS5QTw0pRSVvjOv5vInzn9h2OHYsDx3s5s8Mff7qrDGkFBE"
        + "oF6Sq_nBJQ"
    static let opensslPS256Token =
        "eyJhbGciOiJQUzI1NiIsImtpZCI6Im9wZW5zc2wtcHMyNTYiLCJ0eXAiOiJKV1QifQ"
        + ".eyJpc3MiOiJodHRwczovL2lzc3Vlci5leGFtcGxlIiwic3ViIjoiMjQ4Mjg5NzYxMDAxIiwiYXVkIjoiY2xpZW50LTEiLCJub25jZSI6Im4tMF"
        + "M2X1d6QTJNaiIsImV4cCI6MjAwMDAwMDAwMCwiaWF0IjoxNzAwMDAwMDAwfQ"
        + ".JL_iZ564QkBDgZrmFed8VpnJUCEoDinrtzFuPwh6ePOILR4ldlv6h2MoJhxykpT7P2xIFv0toyeSqCT6vFW7OqMBPBQwBfYNAPYyOQbqZ-qGrq"
        + "oWoF3mwAbIH1Z8ft-3EJ9IZGYPF9mB8NzUr4tj9I-VocI2lp9kZOphI2N4CPm6eyi65XG2hGQi7I1aCfXfT-6ReR9OPeNDrN-I1Ok3h-mXyZ-M"
        + "GmZYZMEpWhSW7FhYK_Y8gu-lia_894MUDYTPuHhQElybZJEck4HuUPrkAK4bpzHQpKwrymGTTAb9_PxFUl6tf5cA2MGPi2CUK4Z55ZZOCdMLh0A"
        + "zEg7ke0AUig"
}
