// hash: digest of a UTF-8 text with sha256 (default), sha512, sha1 or md5, as hex or base64.
// The algorithms are written out here because the tool may link nothing but wasi-libc.
#include <math.h>

#include "tg_json.h"
#include "toolgate.h"

static uint32_t rol32(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
static uint32_t ror32(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
static uint64_t ror64(uint64_t x, int n) { return (x >> n) | (x << (64 - n)); }

// Merkle-Damgard padding shared by all four: 0x80, zeros, then the bit length (big or little endian).
static uint8_t *pad(const uint8_t *msg, size_t len, size_t block, int len_bytes, int big_endian, size_t *out_len) {
  size_t total = ((len + 1 + (size_t)len_bytes + block - 1) / block) * block;
  uint8_t *p = calloc(total, 1);
  if (!p) return NULL;
  memcpy(p, msg, len);
  p[len] = 0x80;
  uint64_t bits = (uint64_t)len * 8;
  for (int i = 0; i < 8; i++) {
    uint8_t b = (uint8_t)(bits >> (8 * i));
    if (big_endian) p[total - 1 - i] = b;
    else p[total - len_bytes + i] = b;
  }
  *out_len = total;
  return p;
}

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static uint32_t le32(const uint8_t *p) { return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0]; }
static uint64_t be64(const uint8_t *p) { return (uint64_t)be32(p) << 32 | be32(p + 4); }

static const uint32_t K256[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static int sha256(const uint8_t *msg, size_t len, uint8_t out[32]) {
  size_t n;
  uint8_t *p = pad(msg, len, 64, 8, 1, &n);
  if (!p) return 1;
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  for (size_t off = 0; off < n; off += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++) w[i] = be32(p + off + 4 * i);
    for (int i = 16; i < 64; i++) {
      uint32_t s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; i++) {
      uint32_t t1 = hh + (ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
      uint32_t t2 = (ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  free(p);
  for (int i = 0; i < 32; i++) out[i] = (uint8_t)(h[i / 4] >> (24 - 8 * (i % 4)));
  return 0;
}

static const uint64_t K512[80] = {
  0x428a2f98d728ae22ULL, 0x7137449123ef65cdULL, 0xb5c0fbcfec4d3b2fULL, 0xe9b5dba58189dbbcULL, 0x3956c25bf348b538ULL,
  0x59f111f1b605d019ULL, 0x923f82a4af194f9bULL, 0xab1c5ed5da6d8118ULL, 0xd807aa98a3030242ULL, 0x12835b0145706fbeULL,
  0x243185be4ee4b28cULL, 0x550c7dc3d5ffb4e2ULL, 0x72be5d74f27b896fULL, 0x80deb1fe3b1696b1ULL, 0x9bdc06a725c71235ULL,
  0xc19bf174cf692694ULL, 0xe49b69c19ef14ad2ULL, 0xefbe4786384f25e3ULL, 0x0fc19dc68b8cd5b5ULL, 0x240ca1cc77ac9c65ULL,
  0x2de92c6f592b0275ULL, 0x4a7484aa6ea6e483ULL, 0x5cb0a9dcbd41fbd4ULL, 0x76f988da831153b5ULL, 0x983e5152ee66dfabULL,
  0xa831c66d2db43210ULL, 0xb00327c898fb213fULL, 0xbf597fc7beef0ee4ULL, 0xc6e00bf33da88fc2ULL, 0xd5a79147930aa725ULL,
  0x06ca6351e003826fULL, 0x142929670a0e6e70ULL, 0x27b70a8546d22ffcULL, 0x2e1b21385c26c926ULL, 0x4d2c6dfc5ac42aedULL,
  0x53380d139d95b3dfULL, 0x650a73548baf63deULL, 0x766a0abb3c77b2a8ULL, 0x81c2c92e47edaee6ULL, 0x92722c851482353bULL,
  0xa2bfe8a14cf10364ULL, 0xa81a664bbc423001ULL, 0xc24b8b70d0f89791ULL, 0xc76c51a30654be30ULL, 0xd192e819d6ef5218ULL,
  0xd69906245565a910ULL, 0xf40e35855771202aULL, 0x106aa07032bbd1b8ULL, 0x19a4c116b8d2d0c8ULL, 0x1e376c085141ab53ULL,
  0x2748774cdf8eeb99ULL, 0x34b0bcb5e19b48a8ULL, 0x391c0cb3c5c95a63ULL, 0x4ed8aa4ae3418acbULL, 0x5b9cca4f7763e373ULL,
  0x682e6ff3d6b2b8a3ULL, 0x748f82ee5defb2fcULL, 0x78a5636f43172f60ULL, 0x84c87814a1f0ab72ULL, 0x8cc702081a6439ecULL,
  0x90befffa23631e28ULL, 0xa4506cebde82bde9ULL, 0xbef9a3f7b2c67915ULL, 0xc67178f2e372532bULL, 0xca273eceea26619cULL,
  0xd186b8c721c0c207ULL, 0xeada7dd6cde0eb1eULL, 0xf57d4f7fee6ed178ULL, 0x06f067aa72176fbaULL, 0x0a637dc5a2c898a6ULL,
  0x113f9804bef90daeULL, 0x1b710b35131c471bULL, 0x28db77f523047d84ULL, 0x32caab7b40c72493ULL, 0x3c9ebe0a15c9bebcULL,
  0x431d67c49c100d4cULL, 0x4cc5d4becb3e42b6ULL, 0x597f299cfc657e2aULL, 0x5fcb6fab3ad6faecULL, 0x6c44198c4a475817ULL};

static int sha512(const uint8_t *msg, size_t len, uint8_t out[64]) {
  size_t n;
  // 16 length bytes; the top 8 stay zero because inputs are far below 2^61 bytes.
  uint8_t *p = pad(msg, len, 128, 16, 1, &n);
  if (!p) return 1;
  uint64_t h[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
                   0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};
  for (size_t off = 0; off < n; off += 128) {
    uint64_t w[80];
    for (int i = 0; i < 16; i++) w[i] = be64(p + off + 8 * i);
    for (int i = 16; i < 80; i++) {
      uint64_t s0 = ror64(w[i - 15], 1) ^ ror64(w[i - 15], 8) ^ (w[i - 15] >> 7);
      uint64_t s1 = ror64(w[i - 2], 19) ^ ror64(w[i - 2], 61) ^ (w[i - 2] >> 6);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint64_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 80; i++) {
      uint64_t t1 = hh + (ror64(e, 14) ^ ror64(e, 18) ^ ror64(e, 41)) + ((e & f) ^ (~e & g)) + K512[i] + w[i];
      uint64_t t2 = (ror64(a, 28) ^ ror64(a, 34) ^ ror64(a, 39)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
  }
  free(p);
  for (int i = 0; i < 64; i++) out[i] = (uint8_t)(h[i / 8] >> (56 - 8 * (i % 8)));
  return 0;
}

static int sha1(const uint8_t *msg, size_t len, uint8_t out[20]) {
  size_t n;
  uint8_t *p = pad(msg, len, 64, 8, 1, &n);
  if (!p) return 1;
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  for (size_t off = 0; off < n; off += 64) {
    uint32_t w[80];
    for (int i = 0; i < 16; i++) w[i] = be32(p + off + 4 * i);
    for (int i = 16; i < 80; i++) w[i] = rol32(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int i = 0; i < 80; i++) {
      uint32_t f, k;
      if (i < 20) { f = (b & c) | (~b & d); k = 0x5A827999; }
      else if (i < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1; }
      else if (i < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDC; }
      else { f = b ^ c ^ d; k = 0xCA62C1D6; }
      uint32_t t = rol32(a, 5) + f + e + k + w[i];
      e = d; d = c; c = rol32(b, 30); b = a; a = t;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
  }
  free(p);
  for (int i = 0; i < 20; i++) out[i] = (uint8_t)(h[i / 4] >> (24 - 8 * (i % 4)));
  return 0;
}

static int md5(const uint8_t *msg, size_t len, uint8_t out[16]) {
  static const int S[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                            5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                            4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                            6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};
  uint32_t K[64];
  for (int i = 0; i < 64; i++) K[i] = (uint32_t)(fabs(sin((double)(i + 1))) * 4294967296.0);  // RFC 1321 table
  size_t n;
  uint8_t *p = pad(msg, len, 64, 8, 0, &n);
  if (!p) return 1;
  uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  for (size_t off = 0; off < n; off += 64) {
    uint32_t m[16];
    for (int i = 0; i < 16; i++) m[i] = le32(p + off + 4 * i);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; i++) {
      uint32_t f;
      int g;
      if (i < 16) { f = (b & c) | (~b & d); g = i; }
      else if (i < 32) { f = (d & b) | (~d & c); g = (5 * i + 1) % 16; }
      else if (i < 48) { f = b ^ c ^ d; g = (3 * i + 5) % 16; }
      else { f = c ^ (b | ~d); g = (7 * i) % 16; }
      uint32_t t = d;
      d = c;
      c = b;
      b = b + rol32(a + f + K[i] + m[g], S[i]);
      a = t;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d;
  }
  free(p);
  for (int i = 0; i < 16; i++) out[i] = (uint8_t)(h[i / 4] >> (8 * (i % 4)));
  return 0;
}

static void base64(tg_buf *b, const uint8_t *d, size_t n) {
  static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
    char q[4] = {A[v >> 18], A[(v >> 12) & 63], i + 1 < n ? A[(v >> 6) & 63] : '=', i + 2 < n ? A[v & 63] : '='};
    tg_buf_put(b, q, 4);
  }
}

TG_EXPORT("hash") int hash(void) {
  size_t len;
  char *in = tg_input(&len);
  char err[512];
  tg_json args;
  if (!in) return tg_error("out of memory reading the input");
  if (tg_json_args(in, len, &args, err, sizeof err)) return tg_error(err);
  const tg_json *text, *alg, *enc;
  if (tg_arg(&args, "text", TG_JSTR, 1, &text, err, sizeof err) ||
      tg_arg(&args, "algorithm", TG_JSTR, 0, &alg, err, sizeof err) ||
      tg_arg(&args, "encoding", TG_JSTR, 0, &enc, err, sizeof err)) {
    tg_json_free(&args);
    return tg_error(err);
  }
  const char *algorithm = alg ? alg->str : "sha256";
  const char *encoding = enc ? enc->str : "hex";
  uint8_t digest[64];
  size_t dlen;
  int fail;
  if (strcmp(algorithm, "sha256") == 0) { dlen = 32; fail = sha256((const uint8_t *)text->str, text->len, digest); }
  else if (strcmp(algorithm, "sha512") == 0) { dlen = 64; fail = sha512((const uint8_t *)text->str, text->len, digest); }
  else if (strcmp(algorithm, "sha1") == 0) { dlen = 20; fail = sha1((const uint8_t *)text->str, text->len, digest); }
  else if (strcmp(algorithm, "md5") == 0) { dlen = 16; fail = md5((const uint8_t *)text->str, text->len, digest); }
  else {
    int rc = tg_errorf("argument 'algorithm' must be one of sha256, sha512, sha1, md5 (got '%.64s')", algorithm);
    tg_json_free(&args);
    return rc;
  }
  if (strcmp(encoding, "hex") != 0 && strcmp(encoding, "base64") != 0) {
    int rc = tg_errorf("argument 'encoding' must be hex or base64 (got '%.64s')", encoding);
    tg_json_free(&args);
    return rc;
  }
  if (fail) { tg_json_free(&args); return tg_error("out of memory hashing the text"); }
  tg_buf out = {0};
  tg_buf_puts(&out, "{\"algorithm\":\"");
  tg_buf_puts(&out, algorithm);
  tg_buf_puts(&out, "\",\"encoding\":\"");
  tg_buf_puts(&out, encoding);
  tg_buf_puts(&out, "\",\"digest\":\"");
  if (encoding[0] == 'h') {
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < dlen; i++) {
      char two[2] = {hex[digest[i] >> 4], hex[digest[i] & 15]};
      tg_buf_put(&out, two, 2);
    }
  } else {
    base64(&out, digest, dlen);
  }
  tg_buf_puts(&out, "\",\"input_bytes\":");
  tg_buf_num(&out, (double)text->len);
  tg_buf_puts(&out, "}");
  int rc = out.oom ? tg_error("out of memory building the result") : (tg_output(out.data, out.len), 0);
  tg_buf_free(&out);
  tg_json_free(&args);
  return rc;
}
