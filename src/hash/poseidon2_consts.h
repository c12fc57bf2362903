/* The Poseidon2 parameters for Goldilocks, widths 8 and 12, as initializer lists, so that the
 * host (C11) and the device (CUDA: __constant__ memory) build their tables from one source.
 *
 * Source: HorizenLabs' reference implementation of the Poseidon2 paper,
 * https://github.com/HorizenLabs/poseidon2 at commit bb476b9c,
 * plain_implementations/src/poseidon2/poseidon2_instance_goldilocks.rs: RC8, RC12,
 * MAT_DIAG8_M_1, MAT_DIAG12_M_1 (round constants from the Poseidon papers' Grain LFSR with
 * field_type 1, alpha 7, n 64, R_F 8, R_P 22; HL's poseidon2_rust_params.sage). The width-8
 * values are also Plonky3's HL_GOLDILOCKS_8_* constants.
 *
 * Layout:
 *   GS_P2_RC{8,12}_EXT: 8 rows of width W: rows 0..3 before the partial rounds, rows 4..7
 *                       after them (HL's rows 0..3 and 26..29);
 *   GS_P2_RC{8,12}_INT: the 22 partial-round constants (HL's rows 4..25, column 0; the other
 *                       columns of those rows are zero);
 *   GS_P2_DIAG{8,12}:   the internal matrix is J + diag(GS_P2_DIAG) (J all ones), i.e. HL's
 *                       MAT_DIAG_M_1 ("diagonal minus one" of the matrix 1 + diag(mu)). */
#ifndef GS_POSEIDON2_CONSTS_H
#define GS_POSEIDON2_CONSTS_H

#define GS_P2_FULL_ROUNDS 8u    /* R_F: 4 before the partial rounds, 4 after */
#define GS_P2_PARTIAL_ROUNDS 22u /* R_P */

#define GS_P2_RC8_EXT                                                                         \
    {0xdd5743e7f2a5a5d9ull, 0xcb3a864e58ada44bull, 0xffa2449ed32f8cdcull, 0x42025f65d6bd13eeull, \
     0x7889175e25506323ull, 0x34b98bb03d24b737ull, 0xbdcc535ecc4faa2aull, 0x5b20ad869fc0d033ull, \
     0xf1dda5b9259dfcb4ull, 0x27515210be112d59ull, 0x4227d1718c766c3full, 0x26d333161a5bd794ull, \
     0x49b938957bf4b026ull, 0x4a56b5938b213669ull, 0x1120426b48c8353dull, 0x6b323c3f10a56cadull, \
     0xce57d6245ddca6b2ull, 0xb1fc8d402bba1eb1ull, 0xb5c5096ca959bd04ull, 0x6db55cd306d31f7full, \
     0xc49d293a81cb9641ull, 0x1ce55a4fe979719full, 0xa92e60a9d178a4d1ull, 0x002cc64973bcfd8cull, \
     0xcea721cce82fb11bull, 0xe5b55eb8098ece81ull, 0x4e30525c6f1ddd66ull, 0x43c6702827070987ull, \
     0xaca68430a7b5762aull, 0x3674238634df9c93ull, 0x88cee1c825e33433ull, 0xde99ae8d74b57176ull, \
     0x014ef1197d341346ull, 0x9725e20825d07394ull, 0xfdb25aef2c5bae3bull, 0xbe5402dc598c971eull, \
     0x93a5711f04cdca3dull, 0xc45a9a5b2f8fb97bull, 0xfe8946a924933545ull, 0x2af997a27369091cull, \
     0xaa62c88e0b294011ull, 0x058eb9d810ce9f74ull, 0xb3cb23eced349ae4ull, 0xa3648177a77b4a84ull, \
     0x43153d905992d95dull, 0xf4e2a97cda44aa4bull, 0x5baa2702b908682full, 0x082923bdf4f750d1ull, \
     0x98ae09a325893803ull, 0xf8a6475077968838ull, 0xceb0735bf00b2c5full, 0x0a1a5d953888e072ull, \
     0x2fcb190489f94475ull, 0xb5be06270dec69fcull, 0x739cb934b09acf8bull, 0x537750b75ec7f25bull, \
     0xe9dd318bae1f3961ull, 0xf7462137299efe1aull, 0xb1f6b8eee9adb940ull, 0xbdebcc8a809dfe6bull, \
     0x40fc1f791b178113ull, 0x3ac1c3362d014864ull, 0x9a016184bdb8aebaull, 0x95f2394459fbc25eull}

#define GS_P2_RC8_INT                                                                         \
    {0x488897d85ff51f56ull, 0x1140737ccb162218ull, 0xa7eeb9215866ed35ull, 0x9bd2976fee49fcc9ull, \
     0xc0c8f0de580a3fccull, 0x4fb2dae6ee8fc793ull, 0x343a89f35f37395bull, 0x223b525a77ca72c8ull, \
     0x56ccb62574aaa918ull, 0xc4d507d8027af9edull, 0xa080673cf0b7e95cull, 0xf0184884eb70dcf8ull, \
     0x044f10b0cb3d5c69ull, 0xe9e3f7993938f186ull, 0x1b761c80e772f459ull, 0x606cec607a1b5facull, \
     0x14a0c2e1d45f03cdull, 0x4eace8855398574full, 0xf905ca7103eff3e6ull, 0xf8c8f8d20862c059ull, \
     0xb524fe8bdd678e5aull, 0xfbb7865901a1ec41ull}

#define GS_P2_DIAG8                                                                           \
    {0xa98811a1fed4e3a5ull, 0x1cc48b54f377e2a0ull, 0xe40cd4f6c5609a26ull, 0x11de79ebca97a4a3ull, \
     0x9177c73d8b7e929cull, 0x2a6fe8085797e791ull, 0x3de6e93329f8d5adull, 0x3f7af9125da962feull}

#define GS_P2_RC12_EXT                                                                        \
    {0x13dcf33aba214f46ull, 0x30b3b654a1da6d83ull, 0x1fc634ada6159b56ull, 0x937459964dc03466ull, \
     0xedd2ef2ca7949924ull, 0xede9affde0e22f68ull, 0x8515b9d6bac9282dull, 0x6b5c07b4e9e900d8ull, \
     0x1ec66368838c8a08ull, 0x9042367d80d1fbabull, 0x400283564a3c3799ull, 0x4a00be0466bca75eull, \
     0x7913beee58e3817full, 0xf545e88532237d90ull, 0x22f8cb8736042005ull, 0x6f04990e247a2623ull, \
     0xfe22e87ba37c38cdull, 0xd20e32c85ffe2815ull, 0x117227674048fe73ull, 0x4e9fb7ea98a6b145ull, \
     0xe0866c232b8af08bull, 0x00bbc77916884964ull, 0x7031c0fb990d7116ull, 0x240a9e87cf35108full, \
     0x2e6363a5a12244b3ull, 0x5e1c3787d1b5011cull, 0x4132660e2a196e8bull, 0x3a013b648d3d4327ull, \
     0xf79839f49888ea43ull, 0xfe85658ebafe1439ull, 0xb6889825a14240bdull, 0x578453605541382bull, \
     0x4508cda8f6b63ce9ull, 0x9c3ef35848684c91ull, 0x0812bde23c87178cull, 0xfe49638f7f722c14ull, \
     0x8e3f688ce885cbf5ull, 0xb8e110acf746a87dull, 0xb4b2e8973a6dabefull, 0x9e714c5da3d462ecull, \
     0x6438f9033d3d0c15ull, 0x24312f7cf1a27199ull, 0x23f843bb47acbf71ull, 0x9183f11a34be9f01ull, \
     0x839062fbb9d45dbfull, 0x24b56e7e6c2e43faull, 0xe1683da61c962a72ull, 0xa95c63971a19bfa7ull, \
     0xc68be7c94882a24dull, 0xaf996d5d5cdaedd9ull, 0x9717f025e7daf6a5ull, 0x6436679e6e7216f4ull, \
     0x8a223d99047af267ull, 0xbb512e35a133ba9aull, 0xfbbf44097671aa03ull, 0xf04058ebf6811e61ull, \
     0x5cca84703fac7ffbull, 0x9b55c7945de6469full, 0x8e05bf09808e934full, 0x2ea900de876307d7ull, \
     0x7748fff2b38dfb89ull, 0x6b99a676dd3b5d81ull, 0xac4bb7c627cf7c13ull, 0xadb6ebe5e9e2f5baull, \
     0x2d33378cafa24ae3ull, 0x1e5b73807543f8c2ull, 0x09208814bfebb10full, 0x782e64b6bb5b93ddull, \
     0xadd5a48eac90b50full, 0xadd4c54c736ea4b1ull, 0xd58dbb86ed817fd8ull, 0x6d5ed1a533f34dddull, \
     0x28686aa3e36b7cb9ull, 0x591abd3476689f36ull, 0x047d766678f13875ull, 0xa2a11112625f5b49ull, \
     0x21fd10a3f8304958ull, 0xf9b40711443b0280ull, 0xd2697eb8b2bde88eull, 0x3493790b51731b3full, \
     0x11caf9dd73764023ull, 0x7acfb8f72878164eull, 0x744ec4db23cefc26ull, 0x1e00e58f422c6340ull, \
     0x21dd28d906a62ddaull, 0xf32a46ab5f465b5full, 0xbfce13201f3f7e6bull, 0xf30d2e7adb5304e2ull, \
     0xecdf4ee4abad48e9ull, 0xf94e82182d395019ull, 0x4ee52e3744d887c5ull, 0xa1341c7cac0083b2ull, \
     0x2302fb26c30c834aull, 0xaea3c587273bf7d3ull, 0xf798e24961823ec7ull, 0x962deba3e9a2cd94ull}

#define GS_P2_RC12_INT                                                                        \
    {0x4adf842aa75d4316ull, 0xf8fbb871aa4ab4ebull, 0x68e85b6eb2dd6aebull, 0x07a0b06b2d270380ull, \
     0xd94e0228bd282de4ull, 0x8bdd91d3250c5278ull, 0x209c68b88bba778full, 0xb5e18cdab77f3877ull, \
     0xb296a3e808da93faull, 0x8370ecbda11a327eull, 0x3f9075283775dad8ull, 0xb78095bb23c6aa84ull, \
     0x3f36b9fe72ad4e5full, 0x69bc96780b10b553ull, 0x3f1d341f2eb7b881ull, 0x4e939e9815838818ull, \
     0xda366b3ae2a31604ull, 0xbc89db1e7287d509ull, 0x6102f411f9ef5659ull, 0x58725c5e7ac1f0abull, \
     0x0df5856c798883e7ull, 0xf7bb62a8da4c961bull}

#define GS_P2_DIAG12                                                                          \
    {0xc3b6c08e23ba9300ull, 0xd84b5de94a324fb6ull, 0x0d0c371c5b35b84full, 0x7964f570e7188037ull, \
     0x5daf18bbd996604bull, 0x6743bc47b9595257ull, 0x5528b9362c59bb70ull, 0xac45e25b7127b68bull, \
     0xa2077d7dfbb606b5ull, 0xf3faac6faee378aeull, 0x0c6388b51545e883ull, 0xd27dbb6944917b60ull}

#endif
