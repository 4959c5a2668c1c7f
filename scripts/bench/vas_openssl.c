/* The VAS benchmark's baseline: Apple VAS cryptogram decryption (vas-protocol.md §5.2, variant A)
 * with OpenSSL 3, the same pipeline as Sources/vas-bench (our VAS module). scripts/bench/vas
 * builds and runs both.
 *
 *   vas_openssl ITERATIONS SCALAR_HEX PASS_TYPE_ID CRYPTOGRAM_HEX PLAINTEXT_HEX CRYPTOGRAMS_FILE
 *
 * Setup once, from the merchant key and pass alone: the P-256 group, the private scalar, the key
 * id SHA-256(public X)[0:4], the variant A SharedInfo, the fetched SHA-256 and AES-256-GCM
 * implementations. Then, untimed, one decryption of CRYPTOGRAM_HEX (the published vector), which
 * must give PLAINTEXT_HEX. Then, timed, ITERATIONS decryptions cycling through the cryptograms of
 * CRYPTOGRAMS_FILE (one "CRYPTOGRAM_HEX PLAINTEXT_HEX" a line, each from its own phone key),
 * caching nothing that depends on the phone's key: key id comparison, decompression of 02 ‖ X,
 * ECDH (Z = X of d·P), X9.63 KDF (K = SHA-256(Z ‖ 00000001 ‖ SharedInfo)), AES-256-GCM decryption
 * with a 16-byte zero IV and tag check, split of the plaintext into timestamp and message, and a
 * comparison of both with the expected ones.
 *
 * Exits 1 unless every decryption succeeds with its expected plaintext; prints one JSON line
 * {"impl":"openssl","iterations":N,"cryptograms":C,"seconds":S,"per_second":R}. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/params.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { KEY_ID_LEN = 4, COORD_LEN = 32, TAG_LEN = 16, IV_LEN = 16, MAX_CRYPTOGRAM = 120, SHARED_INFO_LEN = 73 };

/* Everything that depends only on the merchant key and the pass, made once. */
struct merchant {
    EC_GROUP *group;
    BIGNUM *scalar;
    unsigned char key_id[KEY_ID_LEN];
    unsigned char shared_info[SHARED_INFO_LEN];
    EVP_MD *sha256;
    EVP_CIPHER *gcm;
};

/* Reusable work space: allocations only, no values carried between cryptograms. */
struct scratch {
    BN_CTX *bn;
    EC_POINT *phone;
    EC_POINT *product;
    BIGNUM *z;
    EVP_MD_CTX *digest;
    EVP_CIPHER_CTX *cipher;
};

/* A cryptogram of the file and its expected plaintext, split as a payload is. */
struct sample {
    unsigned char cryptogram[MAX_CRYPTOGRAM];
    size_t len;
    uint32_t timestamp;
    unsigned char message[MAX_CRYPTOGRAM];
    size_t message_len;
};

/* A decrypted plaintext, split (§5.2 step 6). */
struct payload {
    uint32_t timestamp;
    const unsigned char *message;
    size_t message_len;
};

static void fail(const char *what) {
    fprintf(stderr, "vas_openssl: %s\n", what);
    exit(1);
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Parses hex into out (at most cap bytes); returns the length or exits. */
static size_t parse_hex(const char *hex, unsigned char *out, size_t cap) {
    size_t len = strlen(hex);
    if (len % 2 || len / 2 > cap) fail("bad hex argument");
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) fail("bad hex argument");
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return len / 2;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Variant A SharedInfo: 0D ‖ "id-aes256-GCM" ‖ "ApplePay encrypted VAS data" ‖ SHA-256(pass id). */
static void make_shared_info(struct merchant *m, const char *pass_type_id) {
    static const char algorithm[] = "id-aes256-GCM", label[] = "ApplePay encrypted VAS data";
    unsigned char *p = m->shared_info;
    *p++ = (unsigned char)(sizeof algorithm - 1);
    memcpy(p, algorithm, sizeof algorithm - 1);
    p += sizeof algorithm - 1;
    memcpy(p, label, sizeof label - 1);
    p += sizeof label - 1;
    if (!EVP_Digest(pass_type_id, strlen(pass_type_id), p, NULL, m->sha256, NULL)) fail("SHA-256 of the pass id");
}

/* The key id: SHA-256 of the public key's X coordinate, first 4 bytes. */
static void make_key_id(struct merchant *m) {
    BN_CTX *bn = BN_CTX_new();
    EC_POINT *pub = EC_POINT_new(m->group);
    BIGNUM *x = BN_new();
    unsigned char xbytes[COORD_LEN], hash[32];
    if (!bn || !pub || !x || !EC_POINT_mul(m->group, pub, m->scalar, NULL, NULL, bn) ||
        !EC_POINT_get_affine_coordinates(m->group, pub, x, NULL, bn) || BN_bn2binpad(x, xbytes, COORD_LEN) != COORD_LEN ||
        !EVP_Digest(xbytes, COORD_LEN, hash, NULL, m->sha256, NULL))
        fail("public key");
    memcpy(m->key_id, hash, KEY_ID_LEN);
    EC_POINT_free(pub);
    BN_free(x);
    BN_CTX_free(bn);
}

static void merchant_init(struct merchant *m, const unsigned char scalar[COORD_LEN], const char *pass_type_id) {
    m->group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    m->scalar = BN_bin2bn(scalar, COORD_LEN, NULL);
    m->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    m->gcm = EVP_CIPHER_fetch(NULL, "AES-256-GCM", NULL);
    if (!m->group || !m->scalar || !m->sha256 || !m->gcm) fail("OpenSSL setup");
    if (BN_is_zero(m->scalar) || BN_cmp(m->scalar, EC_GROUP_get0_order(m->group)) >= 0) fail("scalar out of range");
    make_shared_info(m, pass_type_id);
    make_key_id(m);
}

static void scratch_init(struct scratch *s, const struct merchant *m) {
    s->bn = BN_CTX_new();
    s->phone = EC_POINT_new(m->group);
    s->product = EC_POINT_new(m->group);
    s->z = BN_new();
    s->digest = EVP_MD_CTX_new();
    s->cipher = EVP_CIPHER_CTX_new();
    if (!s->bn || !s->phone || !s->product || !s->z || !s->digest || !s->cipher) fail("allocation");
}

/* Steps 2-3: Z = X of d·P, P being the point 02 ‖ x. Returns 0 when x is not on the curve. */
static int shared_secret(const struct merchant *m, struct scratch *s, const unsigned char *x, unsigned char z[COORD_LEN]) {
    BN_CTX_start(s->bn);
    BIGNUM *bx = BN_CTX_get(s->bn);
    int ok = bx && BN_bin2bn(x, COORD_LEN, bx) &&
             EC_POINT_set_compressed_coordinates(m->group, s->phone, bx, 0, s->bn) &&
             EC_POINT_mul(m->group, s->product, NULL, s->phone, m->scalar, s->bn) &&
             EC_POINT_get_affine_coordinates(m->group, s->product, s->z, NULL, s->bn) &&
             BN_bn2binpad(s->z, z, COORD_LEN) == COORD_LEN;
    BN_CTX_end(s->bn);
    return ok;
}

/* Step 4: K = SHA-256(Z ‖ 00000001 ‖ SharedInfo). */
static int derive_key(const struct merchant *m, struct scratch *s, const unsigned char z[COORD_LEN], unsigned char k[32]) {
    static const unsigned char counter[4] = {0, 0, 0, 1};
    return EVP_DigestInit_ex2(s->digest, m->sha256, NULL) && EVP_DigestUpdate(s->digest, z, COORD_LEN) &&
           EVP_DigestUpdate(s->digest, counter, sizeof counter) &&
           EVP_DigestUpdate(s->digest, m->shared_info, SHARED_INFO_LEN) && EVP_DigestFinal_ex(s->digest, k, NULL);
}

/* Step 5: AES-256-GCM open with a 16-byte zero IV, no AAD; 0 when the tag does not verify. */
static int gcm_open(const struct merchant *m, struct scratch *s, const unsigned char k[32], const unsigned char *ct,
                    size_t ct_len, const unsigned char tag[TAG_LEN], unsigned char *out) {
    static const unsigned char iv[IV_LEN] = {0};
    OSSL_PARAM params[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &(size_t){IV_LEN}), OSSL_PARAM_END};
    int len = 0, final_len = 0;
    return EVP_DecryptInit_ex2(s->cipher, m->gcm, NULL, NULL, params) &&
           EVP_DecryptInit_ex2(s->cipher, NULL, k, iv, NULL) &&
           EVP_DecryptUpdate(s->cipher, out, &len, ct, (int)ct_len) &&
           EVP_CIPHER_CTX_ctrl(s->cipher, EVP_CTRL_GCM_SET_TAG, TAG_LEN, (void *)tag) &&
           EVP_DecryptFinal_ex(s->cipher, out + len, &final_len) > 0;
}

/* The whole pipeline for one cryptogram of len >= 56 bytes; the plaintext goes to out (room for
 * len - 52 bytes) and p points into it.
 * Returns 0 for a wrong key id, a point off the curve or a failed tag. */
static int decrypt(const struct merchant *m, struct scratch *s, const unsigned char *c, size_t len, unsigned char *out,
                   struct payload *p) {
    unsigned char z[COORD_LEN], k[32];
    size_t ct_len = len - KEY_ID_LEN - COORD_LEN - TAG_LEN;
    if (memcmp(c, m->key_id, KEY_ID_LEN) != 0) return 0;
    if (!shared_secret(m, s, c + KEY_ID_LEN, z) || !derive_key(m, s, z, k) ||
        !gcm_open(m, s, k, c + KEY_ID_LEN + COORD_LEN, ct_len, c + len - TAG_LEN, out))
        return 0;
    p->timestamp = (uint32_t)out[0] << 24 | (uint32_t)out[1] << 16 | (uint32_t)out[2] << 8 | out[3];
    p->message = out + 4;
    p->message_len = ct_len - 4;
    return 1;
}

/* Fills a sample from the hex of a cryptogram and of its plaintext (timestamp ‖ message). */
static void sample_init(struct sample *sample, const char *cryptogram_hex, const char *plaintext_hex) {
    unsigned char plaintext[MAX_CRYPTOGRAM];
    sample->len = parse_hex(cryptogram_hex, sample->cryptogram, sizeof sample->cryptogram);
    size_t plaintext_len = parse_hex(plaintext_hex, plaintext, sizeof plaintext);
    if (sample->len < KEY_ID_LEN + COORD_LEN + 4 + TAG_LEN) fail("cryptogram too short");
    if (plaintext_len != sample->len - KEY_ID_LEN - COORD_LEN - TAG_LEN) fail("plaintext and cryptogram lengths differ");
    sample->timestamp = (uint32_t)plaintext[0] << 24 | (uint32_t)plaintext[1] << 16 | (uint32_t)plaintext[2] << 8 | plaintext[3];
    sample->message_len = plaintext_len - 4;
    memcpy(sample->message, plaintext + 4, sample->message_len);
}

/* Reads CRYPTOGRAMS_FILE: one "CRYPTOGRAM_HEX PLAINTEXT_HEX" a line. Returns the count or exits. */
static size_t read_samples(const char *path, struct sample **samples) {
    FILE *file = fopen(path, "r");
    if (!file) fail("cannot open the cryptograms file");
    char *line = NULL;
    size_t cap = 0, count = 0, room = 0;
    *samples = NULL;
    while (getline(&line, &cap, file) != -1) {
        char *save = NULL, *cryptogram = strtok_r(line, " \r\n", &save), *plaintext = strtok_r(NULL, " \r\n", &save);
        if (!cryptogram) continue;
        if (!plaintext || strtok_r(NULL, " \r\n", &save)) fail("a line of the cryptograms file is not CRYPTOGRAM_HEX PLAINTEXT_HEX");
        if (count == room) {
            room = room ? 2 * room : 64;
            *samples = realloc(*samples, room * sizeof **samples);
            if (!*samples) fail("allocation");
        }
        sample_init(&(*samples)[count++], cryptogram, plaintext);
    }
    free(line);
    fclose(file);
    if (count == 0) fail("no cryptograms in the file");
    return count;
}

/* Decrypts a sample and compares timestamp and message with the expected ones; 0 on any failure. */
static int decrypt_checked(const struct merchant *m, struct scratch *s, const struct sample *sample, unsigned char *out,
                           struct payload *p) {
    return decrypt(m, s, sample->cryptogram, sample->len, out, p) && p->timestamp == sample->timestamp &&
           p->message_len == sample->message_len && memcmp(p->message, sample->message, sample->message_len) == 0;
}

int main(int argc, char **argv) {
    if (argc != 7 || atol(argv[1]) <= 0) {
        fprintf(stderr,
                "usage: vas_openssl ITERATIONS SCALAR_HEX PASS_TYPE_ID CRYPTOGRAM_HEX PLAINTEXT_HEX CRYPTOGRAMS_FILE\n");
        return 64;
    }
    long iterations = atol(argv[1]);
    unsigned char scalar[COORD_LEN], plaintext[MAX_CRYPTOGRAM];
    if (parse_hex(argv[2], scalar, sizeof scalar) != COORD_LEN) fail("the scalar must be 32 bytes");
    struct sample vector, *samples;
    sample_init(&vector, argv[4], argv[5]);
    size_t count = read_samples(argv[6], &samples);

    struct merchant m;
    struct scratch s;
    struct payload p;
    merchant_init(&m, scalar, argv[3]);
    scratch_init(&s, &m);

    if (!decrypt_checked(&m, &s, &vector, plaintext, &p)) fail("the published vector does not decrypt to its plaintext");
    double start = now_seconds();
    size_t index = 0;
    for (long i = 0; i < iterations; i++) {
        if (!decrypt_checked(&m, &s, &samples[index], plaintext, &p)) fail("a decryption failed or gave another plaintext");
        if (++index == count) index = 0;
    }
    double seconds = now_seconds() - start;
    printf("{\"impl\":\"openssl\",\"iterations\":%ld,\"cryptograms\":%zu,\"seconds\":%.6f,\"per_second\":%.1f}\n",
           iterations, count, seconds, (double)iterations / seconds);
    free(samples);
    return 0;
}
