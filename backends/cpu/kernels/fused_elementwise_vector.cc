// ExecuteVector: the fused element-wise program's instructions on AVX-512,
// 16 floats a step, the last step masked. Each case computes lane by lane
// what ExecuteScalar's expression computes (fused_elementwise.cc): the same
// IEEE operations (no fused multiply-adds), the same comparisons with NaN
// (ordered where the scalar operator is false on NaN, unordered for !=),
// and the same choices of operand, so the results are the same bits.
#include <cstdint>
#include <limits>

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>
#endif

#include "backends/cpu/kernels/fused_elementwise_program.h"

namespace webnnm::backends::cpu {

#if defined(__AVX512F__) && defined(__AVX512DQ__)

namespace {

inline __m512 Sign() { return _mm512_set1_ps(-0.0f); }
inline __m512 One() { return _mm512_set1_ps(1.0f); }
inline __m512 Zero() { return _mm512_setzero_ps(); }

// 1.0f where `m`, else 0.0f (a comparison's value as the scalar float()).
inline __m512 Flag(__mmask16 m) { return _mm512_maskz_mov_ps(m, One()); }

// One instruction's operands and steps of 16: full ones with plain loads
// and stores, then a tail with the lanes k; a register that is a row of
// its own (Instruction::rows) is read and written whole even there (its
// row has room), so that the next instruction's load of it forwards from
// this store — masked stores do not forward.
struct Steps {
  Steps(const Instruction& instruction, float* const* at, int64_t count)
      : in(instruction),
        d(at[in.dst]),
        pa(at[in.a]),
        pb(at[in.b]),
        pc(at[in.c]),
        n(count),
        full(count / 16 * 16),
        tail(static_cast<__mmask16>((1u << (count % 16)) - 1)) {}

  __m512 Load(const float* p, int64_t i, __mmask16 k, int bit) const {
    return k == 0xffff || (in.rows & bit) ? _mm512_loadu_ps(p + i)
                                          : _mm512_maskz_loadu_ps(k, p + i);
  }
  void Store(int64_t i, __mmask16 k, __m512 v) const {
    if (k == 0xffff || (in.rows & 1)) {
      _mm512_storeu_ps(d + i, v);
    } else {
      _mm512_mask_storeu_ps(d + i, k, v);
    }
  }

  const Instruction& in;
  float* d;
  const float *pa, *pb, *pc;
  int64_t n, full;
  __mmask16 tail;
};

#define WEBNNM_STEPS(expression)             \
  for (int64_t i = 0; i < s.full; i += 16) { \
    constexpr __mmask16 k = 0xffff;          \
    s.Store(i, k, (expression));             \
  }                                          \
  if (s.full < s.n) {                        \
    const int64_t i = s.full;                \
    const __mmask16 k = s.tail;              \
    s.Store(i, k, (expression));             \
  }                                          \
  return true
#define LA s.Load(s.pa, i, k, 2)
#define LB s.Load(s.pb, i, k, 4)
#define LC s.Load(s.pc, i, k, 8)

// Arithmetic and unary functions; false for other codes.
bool Arithmetic(const Steps& s) {
  const __m512 nan = _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN());
  const Instruction& in = s.in;
  switch (in.code) {
    case Code::kAdd:
      WEBNNM_STEPS(_mm512_add_ps(LA, LB));
    case Code::kSub:
      WEBNNM_STEPS(_mm512_sub_ps(LA, LB));
    case Code::kMul:
      WEBNNM_STEPS(_mm512_mul_ps(LA, LB));
    case Code::kDiv:
      WEBNNM_STEPS(_mm512_div_ps(LA, LB));
    case Code::kMax:  // NaN if either is; a < b ? b : a
      WEBNNM_STEPS(([&] {
        const __m512 a = LA, b = LB;
        const __m512 r =
            _mm512_mask_mov_ps(a, _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), b);
        return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q),
                                  nan);
      }()));
    case Code::kMin:  // NaN if either is; b < a ? b : a
      WEBNNM_STEPS(([&] {
        const __m512 a = LA, b = LB;
        const __m512 r =
            _mm512_mask_mov_ps(a, _mm512_cmp_ps_mask(b, a, _CMP_LT_OQ), b);
        return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q),
                                  nan);
      }()));
    case Code::kAbs:  // a < 0 ? -a : a (-0 and NaN kept)
      WEBNNM_STEPS(([&] {
        const __m512 a = LA;
        return _mm512_mask_xor_ps(a, _mm512_cmp_ps_mask(a, Zero(), _CMP_LT_OQ),
                                  a, Sign());
      }()));
    case Code::kNeg:
      WEBNNM_STEPS(_mm512_xor_ps(LA, Sign()));
    case Code::kSign:  // NaN kept; 1, -1, else +0
      WEBNNM_STEPS(([&] {
        const __m512 a = LA;
        __m512 r = Flag(_mm512_cmp_ps_mask(a, Zero(), _CMP_GT_OQ));
        r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, Zero(), _CMP_LT_OQ),
                               _mm512_set1_ps(-1.0f));
        return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), a);
      }()));
    case Code::kRelu:  // a > 0 ? a : +0 (NaN gives 0)
      WEBNNM_STEPS(([&] {
        const __m512 a = LA;
        return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(a, Zero(), _CMP_GT_OQ),
                                   a);
      }()));
    case Code::kSqrt:
      WEBNNM_STEPS(_mm512_sqrt_ps(LA));
    case Code::kReciprocal:
      WEBNNM_STEPS(_mm512_div_ps(One(), LA));
    case Code::kSoftsign:  // a / (1 + |a|)
      WEBNNM_STEPS(([&] {
        const __m512 a = LA;
        return _mm512_div_ps(a,
                             _mm512_add_ps(One(), _mm512_andnot_ps(Sign(), a)));
      }()));
    case Code::kFloor:
      WEBNNM_STEPS(
          _mm512_roundscale_ps(LA, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
    case Code::kCeil:
      WEBNNM_STEPS(
          _mm512_roundscale_ps(LA, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
    case Code::kCopy:
      WEBNNM_STEPS(LA);
    case Code::kClamp: {  // y = a < low ? low : a; y > high ? high : y
      const __m512 low = _mm512_set1_ps(in.p), high = _mm512_set1_ps(in.q);
      WEBNNM_STEPS(([&] {
        const __m512 a = LA;
        const __m512 y =
            _mm512_mask_mov_ps(a, _mm512_cmp_ps_mask(a, low, _CMP_LT_OQ), low);
        return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(y, high, _CMP_GT_OQ),
                                  high);
      }()));
    }
    case Code::kLeakyRelu: {  // a >= 0 ? a : alpha a
      const __m512 alpha = _mm512_set1_ps(in.p);
      WEBNNM_STEPS(([&] {
        const __m512 a = LA;
        return _mm512_mask_mov_ps(_mm512_mul_ps(alpha, a),
                                  _mm512_cmp_ps_mask(a, Zero(), _CMP_GE_OQ), a);
      }()));
    }
    default:
      return false;
  }
}

// Comparisons, logic, isNaN, isInfinite and where; false for other codes.
bool Logic(const Steps& s) {
  switch (s.in.code) {
    case Code::kEqual:
      WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_EQ_OQ)));
    case Code::kNotEqual:
      WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_NEQ_UQ)));
    case Code::kGreater:
      WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_GT_OQ)));
    case Code::kGreaterOrEqual:
      WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_GE_OQ)));
    case Code::kLesser:
      WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_LT_OQ)));
    case Code::kLesserOrEqual:
      WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_LE_OQ)));
    case Code::kLogicalAnd:
      WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, Zero(), _CMP_NEQ_UQ) &
                        _mm512_cmp_ps_mask(LB, Zero(), _CMP_NEQ_UQ)));
    case Code::kLogicalOr:
      WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, Zero(), _CMP_NEQ_UQ) |
                        _mm512_cmp_ps_mask(LB, Zero(), _CMP_NEQ_UQ)));
    case Code::kLogicalXor:
      WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, Zero(), _CMP_NEQ_UQ) ^
                        _mm512_cmp_ps_mask(LB, Zero(), _CMP_NEQ_UQ)));
    case Code::kLogicalNot:
      WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, Zero(), _CMP_EQ_OQ)));
    case Code::kIsNaN:
      WEBNNM_STEPS(([&] {
        const __m512 a = LA;
        return Flag(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q));
      }()));
    case Code::kIsInfinite:
      WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(
          _mm512_andnot_ps(Sign(), LA),
          _mm512_set1_ps(std::numeric_limits<float>::infinity()), _CMP_EQ_OQ)));
    case Code::kWhere:  // a != 0 ? b : c
      WEBNNM_STEPS(_mm512_mask_mov_ps(
          LC, _mm512_cmp_ps_mask(LA, Zero(), _CMP_NEQ_UQ), LB));
    default:
      return false;
  }
}

#undef LA
#undef LB
#undef LC
#undef WEBNNM_STEPS

}  // namespace

bool ExecuteVector(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  return Arithmetic(s) || Logic(s);
}

#else

bool ExecuteVector(const Instruction&, float* const*, int64_t) { return false; }

#endif

}  // namespace webnnm::backends::cpu
