// VectorInstruction: each instruction of the fused element-wise program as
// an AVX-512 function of its own, 16 floats a step, the last step masked;
// and the moves of values into and out of the kernel's rows (FillRow,
// GatherRow, WidenBytes, NarrowBytes) with vector stores. Each function
// computes lane by lane what ExecuteScalar's expression computes
// (fused_elementwise.cc): the same IEEE operations (no fused
// multiply-adds), the same comparisons with NaN (ordered where the scalar
// operator is false on NaN, unordered for !=), and the same choices of
// operand, so the results are the same bits. Without AVX-512 (the plain
// build) VectorInstruction gives nothing and the moves are loops.
#include <algorithm>
#include <cstdint>
#include <limits>

#if defined(__AVX512F__) && defined(__AVX512DQ__)
#include <immintrin.h>
#endif

#include "backends/cpu/kernels/exp_floats.h"
#include "backends/cpu/kernels/fused_elementwise_program.h"
#include "backends/cpu/kernels/lanes_avx512.h"

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
        tail(FirstLanes16(count % 16)) {}

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
  }
#define LA s.Load(s.pa, i, k, 2)
#define LB s.Load(s.pb, i, k, 4)
#define LC s.Load(s.pc, i, k, 8)

void OpAdd(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_add_ps(LA, LB));
}

void OpSub(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_sub_ps(LA, LB));
}

void OpMul(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_mul_ps(LA, LB));
}

void OpDiv(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_div_ps(LA, LB));
}

// Max: NaN if either is; a < b ? b : a
void OpMax(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  const __m512 nan = _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN());
  WEBNNM_STEPS(([&] {
    const __m512 a = LA, b = LB;
    const __m512 r =
        _mm512_mask_mov_ps(a, _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ), b);
    return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q), nan);
  }()));
}

// Min: NaN if either is; b < a ? b : a
void OpMin(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  const __m512 nan = _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN());
  WEBNNM_STEPS(([&] {
    const __m512 a = LA, b = LB;
    const __m512 r =
        _mm512_mask_mov_ps(a, _mm512_cmp_ps_mask(b, a, _CMP_LT_OQ), b);
    return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, b, _CMP_UNORD_Q), nan);
  }()));
}

// Abs: a < 0 ? -a : a (-0 and NaN kept)
void OpAbs(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(([&] {
    const __m512 a = LA;
    return _mm512_mask_xor_ps(a, _mm512_cmp_ps_mask(a, Zero(), _CMP_LT_OQ), a,
                              Sign());
  }()));
}

void OpNeg(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_xor_ps(LA, Sign()));
}

// Sign: NaN kept; 1, -1, else +0
void OpSign(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(([&] {
    const __m512 a = LA;
    __m512 r = Flag(_mm512_cmp_ps_mask(a, Zero(), _CMP_GT_OQ));
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, Zero(), _CMP_LT_OQ),
                           _mm512_set1_ps(-1.0f));
    return _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q), a);
  }()));
}

// Relu: a > 0 ? a : +0 (NaN gives 0)
void OpRelu(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(([&] {
    const __m512 a = LA;
    return _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(a, Zero(), _CMP_GT_OQ), a);
  }()));
}

void OpSqrt(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_sqrt_ps(LA));
}

void OpReciprocal(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_div_ps(One(), LA));
}

// Softsign: a / (1 + |a|)
void OpSoftsign(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(([&] {
    const __m512 a = LA;
    return _mm512_div_ps(a, _mm512_add_ps(One(), _mm512_andnot_ps(Sign(), a)));
  }()));
}

void OpFloor(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(
      _mm512_roundscale_ps(LA, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
}

void OpCeil(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(
      _mm512_roundscale_ps(LA, _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC));
}

void OpCopy(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(LA);
}

// Clamp: y = a < low ? low : a; y > high ? high : y
void OpClamp(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  const __m512 low = _mm512_set1_ps(s.in.p), high = _mm512_set1_ps(s.in.q);
  WEBNNM_STEPS(([&] {
    const __m512 a = LA;
    const __m512 y =
        _mm512_mask_mov_ps(a, _mm512_cmp_ps_mask(a, low, _CMP_LT_OQ), low);
    return _mm512_mask_mov_ps(y, _mm512_cmp_ps_mask(y, high, _CMP_GT_OQ), high);
  }()));
}

// LeakyRelu: a >= 0 ? a : alpha a
void OpLeakyRelu(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  const __m512 alpha = _mm512_set1_ps(s.in.p);
  WEBNNM_STEPS(([&] {
    const __m512 a = LA;
    return _mm512_mask_mov_ps(_mm512_mul_ps(alpha, a),
                              _mm512_cmp_ps_mask(a, Zero(), _CMP_GE_OQ), a);
  }()));
}

void OpEqual(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_EQ_OQ)));
}

void OpNotEqual(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_NEQ_UQ)));
}

void OpGreater(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_GT_OQ)));
}

void OpGreaterOrEqual(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_GE_OQ)));
}

void OpLesser(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_LT_OQ)));
}

void OpLesserOrEqual(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, LB, _CMP_LE_OQ)));
}

void OpLogicalAnd(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, Zero(), _CMP_NEQ_UQ) &
                    _mm512_cmp_ps_mask(LB, Zero(), _CMP_NEQ_UQ)));
}

void OpLogicalOr(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, Zero(), _CMP_NEQ_UQ) |
                    _mm512_cmp_ps_mask(LB, Zero(), _CMP_NEQ_UQ)));
}

void OpLogicalXor(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, Zero(), _CMP_NEQ_UQ) ^
                    _mm512_cmp_ps_mask(LB, Zero(), _CMP_NEQ_UQ)));
}

void OpLogicalNot(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(LA, Zero(), _CMP_EQ_OQ)));
}

void OpIsNaN(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(([&] {
    const __m512 a = LA;
    return Flag(_mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q));
  }()));
}

void OpIsInfinite(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(Flag(_mm512_cmp_ps_mask(
      _mm512_andnot_ps(Sign(), LA),
      _mm512_set1_ps(std::numeric_limits<float>::infinity()), _CMP_EQ_OQ)));
}

// Where: a != 0 ? b : c
void OpWhere(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(
      _mm512_mask_mov_ps(LC, _mm512_cmp_ps_mask(LA, Zero(), _CMP_NEQ_UQ), LB));
}

// std::exp and the sigmoid written with it, lane for lane (exp_floats.h).
void OpExp(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(ExpLanes16(LA));
}

void OpSigmoid(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_div_ps(
      One(), _mm512_add_ps(One(), ExpLanes16(_mm512_xor_ps(LA, Sign())))));
}

// A product and a sum or difference, each rounded (two instructions, not
// a fused multiply-add), the operands in the scalar expression's order.
void OpMulAdd(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_add_ps(_mm512_mul_ps(LA, LB), LC));
}

void OpAddMul(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_add_ps(LC, _mm512_mul_ps(LA, LB)));
}

void OpMulSub(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_sub_ps(_mm512_mul_ps(LA, LB), LC));
}

void OpSubMul(const Instruction& in, float* const* at, int64_t n) {
  const Steps s(in, at, n);
  WEBNNM_STEPS(_mm512_sub_ps(LC, _mm512_mul_ps(LA, LB)));
}

#undef LA
#undef LB
#undef LC
#undef WEBNNM_STEPS

}  // namespace

void FillRow(float* row, float v, int64_t n) {
  const __m512 all = _mm512_set1_ps(v);
  for (int64_t i = 0; i < n; i += 16) _mm512_storeu_ps(row + i, all);
}

void GatherRow(float* row, const float* from, int64_t from_count,
               const int32_t* index, int64_t n) {
  // A source of up to 32 floats (a broadcast row or column) in two
  // registers, picked from by permutations: gathers cost far more.
  const bool small = from_count <= 32;
  const __m512 lo = small
                        ? _mm512_maskz_loadu_ps(FirstLanes16(from_count), from)
                        : _mm512_setzero_ps();
  const __m512 hi =
      small && from_count > 16
          ? _mm512_maskz_loadu_ps(FirstLanes16(from_count - 16), from + 16)
          : _mm512_setzero_ps();
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = FirstLanes16(n - i);
    const __m512i at = _mm512_maskz_loadu_epi32(k, index + i);
    _mm512_storeu_ps(row + i, small ? _mm512_permutex2var_ps(lo, at, hi)
                                    : _mm512_mask_i32gather_ps(
                                          _mm512_setzero_ps(), k, at, from, 4));
  }
}

void WidenBytes(float* row, const uint8_t* from, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = FirstLanes16(n - i);
    const __m128i bytes = _mm_maskz_loadu_epi8(k, from + i);
    _mm512_storeu_ps(row + i, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(bytes)));
  }
}

void NarrowBytes(uint8_t* to, const float* row, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 k = FirstLanes16(n - i);
    // Truncated toward zero, the low byte kept: static_cast<uint8_t> of
    // the values 0..255 a register of bytes holds.
    _mm_mask_storeu_epi8(
        to + i, k,
        _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(_mm512_loadu_ps(row + i))));
  }
}

InstructionFunction VectorInstruction(Code code) {
  switch (code) {
    case Code::kAdd:
      return OpAdd;
    case Code::kSub:
      return OpSub;
    case Code::kMul:
      return OpMul;
    case Code::kDiv:
      return OpDiv;
    case Code::kMax:
      return OpMax;
    case Code::kMin:
      return OpMin;
    case Code::kAbs:
      return OpAbs;
    case Code::kNeg:
      return OpNeg;
    case Code::kSign:
      return OpSign;
    case Code::kRelu:
      return OpRelu;
    case Code::kSqrt:
      return OpSqrt;
    case Code::kReciprocal:
      return OpReciprocal;
    case Code::kSoftsign:
      return OpSoftsign;
    case Code::kFloor:
      return OpFloor;
    case Code::kCeil:
      return OpCeil;
    case Code::kCopy:
      return OpCopy;
    case Code::kClamp:
      return OpClamp;
    case Code::kLeakyRelu:
      return OpLeakyRelu;
    case Code::kEqual:
      return OpEqual;
    case Code::kNotEqual:
      return OpNotEqual;
    case Code::kGreater:
      return OpGreater;
    case Code::kGreaterOrEqual:
      return OpGreaterOrEqual;
    case Code::kLesser:
      return OpLesser;
    case Code::kLesserOrEqual:
      return OpLesserOrEqual;
    case Code::kLogicalAnd:
      return OpLogicalAnd;
    case Code::kLogicalOr:
      return OpLogicalOr;
    case Code::kLogicalXor:
      return OpLogicalXor;
    case Code::kLogicalNot:
      return OpLogicalNot;
    case Code::kIsNaN:
      return OpIsNaN;
    case Code::kIsInfinite:
      return OpIsInfinite;
    case Code::kWhere:
      return OpWhere;
    case Code::kExp:
      return OpExp;
    case Code::kSigmoid:
      return OpSigmoid;
    case Code::kMulAdd:
      return OpMulAdd;
    case Code::kAddMul:
      return OpAddMul;
    case Code::kMulSub:
      return OpMulSub;
    case Code::kSubMul:
      return OpSubMul;
  }
  return nullptr;
}

#else  // no AVX-512: the plain loops

InstructionFunction VectorInstruction(Code) { return nullptr; }

void FillRow(float* row, float v, int64_t n) { std::fill_n(row, n, v); }

void GatherRow(float* row, const float* from, int64_t, const int32_t* index,
               int64_t n) {
  for (int64_t i = 0; i < n; ++i) row[i] = from[index[i]];
}

void WidenBytes(float* row, const uint8_t* from, int64_t n) {
  for (int64_t i = 0; i < n; ++i) row[i] = from[i];
}

void NarrowBytes(uint8_t* to, const float* row, int64_t n) {
  for (int64_t i = 0; i < n; ++i) to[i] = static_cast<uint8_t>(row[i]);
}

#endif

}  // namespace webnnm::backends::cpu
