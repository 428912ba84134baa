// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11): a counter-based generator. The same (key, counter) always
// gives the same four 32-bit words, so any element of any random stream can
// be computed independently — which is what makes training deterministic
// and resumable: the state is just a key and a position.
#ifndef WEBNNM_ENGINE_BASE_PHILOX_H_
#define WEBNNM_ENGINE_BASE_PHILOX_H_

#include <array>
#include <cstddef>
#include <cstdint>

namespace webnnm {

using PhiloxBlock = std::array<uint32_t, 4>;

PhiloxBlock Philox4x32(PhiloxBlock counter, uint64_t key);

// The blocks of n consecutive counters: out[i] = Philox4x32(counter with
// word 0 + i (mod 2^32), key) for i < n — the same words, eight blocks at
// a time where the CPU has AVX-512 (a shuffle draws one block per
// element).
void Philox4x32Run(PhiloxBlock counter, uint64_t key, PhiloxBlock* out,
                   size_t n);

// A float uniform in [0, 1) from 24 random bits.
inline float UniformFloat(uint32_t bits) {
  return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f);
}

}  // namespace webnnm

#endif  // WEBNNM_ENGINE_BASE_PHILOX_H_
