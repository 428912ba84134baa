#include "engine/base/philox.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace webnnm {
namespace {

constexpr uint32_t kMultiplier0 = 0xD2511F53;
constexpr uint32_t kMultiplier1 = 0xCD9E8D57;
constexpr uint32_t kBump0 = 0x9E3779B9;
constexpr uint32_t kBump1 = 0xBB67AE85;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define WEBNNM_PHILOX_AVX512 1

// Eight blocks: counter word 0 + i for lane i, each word in the low half
// of a 64-bit lane (vpmuludq multiplies those into 64-bit products).
__attribute__((target("avx512f"))) void EightBlocks(PhiloxBlock counter,
                                                    uint64_t key,
                                                    PhiloxBlock* out) {
  // 32-bit additions: word 0 wraps within its lane's low half.
  __m512i c0 = _mm512_add_epi32(_mm512_set1_epi64(counter[0]),
                                _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
  __m512i c1 = _mm512_set1_epi64(counter[1]);
  __m512i c2 = _mm512_set1_epi64(counter[2]);
  __m512i c3 = _mm512_set1_epi64(counter[3]);
  const __m512i m0 = _mm512_set1_epi64(kMultiplier0);
  const __m512i m1 = _mm512_set1_epi64(kMultiplier1);
  const __m512i low = _mm512_set1_epi64(0xFFFFFFFF);
  uint32_t k0 = static_cast<uint32_t>(key);
  uint32_t k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const __m512i p0 = _mm512_mul_epu32(c0, m0);
    const __m512i p1 = _mm512_mul_epu32(c2, m1);
    c0 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p1, 32), c1),
                          _mm512_set1_epi64(k0));
    c1 = _mm512_and_si512(p1, low);
    c2 = _mm512_xor_si512(_mm512_xor_si512(_mm512_srli_epi64(p0, 32), c3),
                          _mm512_set1_epi64(k1));
    c3 = _mm512_and_si512(p0, low);
    k0 += kBump0;
    k1 += kBump1;
  }
  // Interleave the four words of each lane into blocks: lane i's words
  // are the low halves of c0..c3's lane i.
  alignas(64) uint64_t w[4][8];
  _mm512_store_si512(w[0], c0);
  _mm512_store_si512(w[1], c1);
  _mm512_store_si512(w[2], c2);
  _mm512_store_si512(w[3], c3);
  for (int i = 0; i < 8; ++i) {
    out[i] = {static_cast<uint32_t>(w[0][i]), static_cast<uint32_t>(w[1][i]),
              static_cast<uint32_t>(w[2][i]), static_cast<uint32_t>(w[3][i])};
  }
}

bool HasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}
#endif

}  // namespace

PhiloxBlock Philox4x32(PhiloxBlock c, uint64_t key) {
  uint32_t k0 = static_cast<uint32_t>(key);
  uint32_t k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t{kMultiplier0} * c[0];
    uint64_t p1 = uint64_t{kMultiplier1} * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1,
         static_cast<uint32_t>(p0)};
    k0 += kBump0;
    k1 += kBump1;
  }
  return c;
}

void Philox4x32Run(PhiloxBlock counter, uint64_t key, PhiloxBlock* out,
                   size_t n) {
  size_t i = 0;
#if defined(WEBNNM_PHILOX_AVX512)
  if (HasAvx512()) {
    for (; i + 8 <= n; i += 8) {
      EightBlocks({static_cast<uint32_t>(counter[0] + i), counter[1],
                   counter[2], counter[3]},
                  key, out + i);
    }
  }
#endif
  for (; i < n; ++i) {
    out[i] = Philox4x32({static_cast<uint32_t>(counter[0] + i), counter[1],
                         counter[2], counter[3]},
                        key);
  }
}

}  // namespace webnnm
