#include "recovery/text/base64.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace binrecover::recovery {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::size_t kLineBytes = 57;  // 76 characters a line

// Two output characters for every 12-bit value: half the lookups of a 6-bit table.
struct Pairs {
  char pairs[4096][2];
  constexpr Pairs() : pairs() {
    for (int v = 0; v < 4096; ++v) {
      pairs[v][0] = kAlphabet[v >> 6];
      pairs[v][1] = kAlphabet[v & 63];
    }
  }
};
constexpr Pairs kPairs;

// Three bytes to four characters, `groups` times.
inline char* encode_groups(const std::uint8_t* p, std::size_t groups, char* o) {
  for (std::size_t g = 0; g < groups; ++g, p += 3, o += 4) {
    const std::uint32_t v = (std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2];
    std::memcpy(o, kPairs.pairs[v >> 12], 2);
    std::memcpy(o + 2, kPairs.pairs[v & 0xfff], 2);
  }
  return o;
}

// The rest after the whole lines: groups, the line breaks, the '=' padding.
char* encode_tail(const std::uint8_t* p, std::size_t i, std::size_t n, char* o) {
  while (n - i >= 3) {
    const std::size_t line_end = std::min(n - (n - i) % 3, (i / kLineBytes + 1) * kLineBytes);
    o = encode_groups(p + i, (line_end - i) / 3, o);
    i = line_end;
    if (i % kLineBytes == 0 && i < n) *o++ = '\n';
  }
  if (i < n) {
    std::uint32_t v = std::uint32_t{p[i]} << 16;
    if (i + 1 < n) v |= std::uint32_t{p[i + 1]} << 8;
    o[0] = kAlphabet[v >> 18];
    o[1] = kAlphabet[(v >> 12) & 63];
    o[2] = i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=';
    o[3] = '=';
    o += 4;
  }
  return o;
}

#if defined(__x86_64__)
// Twelve bytes (of the sixteen loaded) to sixteen characters: the bytes spread so that each
// 32-bit lane holds one group, the four 6-bit indices moved into bytes by two multiplies, then
// each index turned into its character by adding the offset of its range (A-Z, a-z, 0-9, +, /)
// looked up with one byte shuffle.
__attribute__((target("ssse3"))) inline __m128i encode12(const std::uint8_t* p) {
  __m128i in = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  in = _mm_shuffle_epi8(in, _mm_setr_epi8(1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10));
  const __m128i hi =
      _mm_mulhi_epu16(_mm_and_si128(in, _mm_set1_epi32(0x0fc0fc00)), _mm_set1_epi32(0x04000040));
  const __m128i lo =
      _mm_mullo_epi16(_mm_and_si128(in, _mm_set1_epi32(0x003f03f0)), _mm_set1_epi32(0x01000010));
  const __m128i idx = _mm_or_si128(hi, lo);
  // 0..51 -> 0, 52..61 -> 1..10, 62 -> 11, 63 -> 12; then 0..25 -> 13.
  __m128i range = _mm_subs_epu8(idx, _mm_set1_epi8(51));
  range =
      _mm_or_si128(range, _mm_and_si128(_mm_cmpgt_epi8(_mm_set1_epi8(26), idx), _mm_set1_epi8(13)));
  const __m128i offsets =
      _mm_setr_epi8('a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52,
                    '0' - 52, '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0);
  return _mm_add_epi8(idx, _mm_shuffle_epi8(offsets, range));
}

// Whole lines of 57 bytes: four steps of twelve bytes (each loads sixteen, all inside the
// line), the last nine bytes by table.
__attribute__((target("ssse3"))) std::size_t encode_lines_ssse3(const std::uint8_t* p,
                                                                std::size_t n, char*& o) {
  std::size_t i = 0;
  while (n - i >= kLineBytes) {
    for (std::size_t k = 0; k < 48; k += 12, o += 16)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(o), encode12(p + i + k));
    o = encode_groups(p + i + 48, 3, o);
    i += kLineBytes;
    if (i < n) *o++ = '\n';
  }
  return i;
}

// AVX-512 VBMI (Mula and Lemire, "Base64 encoding and decoding at almost the speed of a memory
// copy", 2019): 48 bytes to 64 characters in three instructions. The bytes spread so that each
// 32-bit lane holds one group (as in encode12), one multishift moves the four 6-bit fields of
// each group into bytes (their top two bits left over), and one byte permutation reads each
// character from the 64-character alphabet by its low six bits.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) inline __m512i encode48(__m512i in) {
  const __m512i spread =
      _mm512_setr_epi32(0x01020001, 0x04050304, 0x07080607, 0x0a0b090a, 0x0d0e0c0d, 0x10110f10,
                        0x13141213, 0x16171516, 0x191a1819, 0x1c1d1b1c, 0x1f201e1f, 0x22232122,
                        0x25262425, 0x28292728, 0x2b2c2a2b, 0x2e2f2d2e);
  // (the zero-masked forms with every lane on: the same instructions, and g++ 12 does not
  // take the plain forms' undefined pass-through operand for an uninitialised variable)
  constexpr __mmask64 kAll = ~__mmask64{0};
  const __m512i fields = _mm512_maskz_multishift_epi64_epi8(
      kAll, _mm512_set1_epi64(0x3036242a1016040a), _mm512_maskz_permutexvar_epi8(kAll, spread, in));
  return _mm512_maskz_permutexvar_epi8(kAll, fields, _mm512_loadu_si512(kAlphabet));
}

// Whole lines of 57 bytes: the first 48 bytes in one step, the last 9 in a second (masked:
// nothing read or written past them), the line's "\n" after their 12 characters.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) std::size_t encode_lines_avx512(
    const std::uint8_t* p, std::size_t n, char*& o) {
  const __m512i newline = _mm512_set1_epi8('\n');
  std::size_t i = 0;
  while (n - i >= kLineBytes) {
    const __m512i head = encode48(_mm512_maskz_loadu_epi8(0xffffffffffffULL, p + i));
    __m512i tail = encode48(_mm512_maskz_loadu_epi8(0x1ffULL, p + i + 48));
    tail = _mm512_mask_mov_epi8(tail, __mmask64{1} << 12, newline);
    _mm512_storeu_si512(o, head);
    i += kLineBytes;
    const bool more = i < n;  // no "\n" after the last line
    _mm512_mask_storeu_epi8(o + 64, more ? 0x1fffULL : 0xfffULL, tail);
    o += more ? 77 : 76;
  }
  return i;
}

const bool kHasSsse3 = __builtin_cpu_supports("ssse3");
const bool kHasAvx512Vbmi = __builtin_cpu_supports("avx512f") &&
                            __builtin_cpu_supports("avx512bw") &&
                            __builtin_cpu_supports("avx512vbmi");
#endif

// The whole-line step of a kernel (null: none, every byte by table).
using LineKernel = std::size_t (*)(const std::uint8_t*, std::size_t, char*&);

LineKernel line_kernel(Base64Kernel k) {
#if defined(__x86_64__)
  if (k == Base64Kernel::kAvx512Vbmi) return encode_lines_avx512;
  if (k == Base64Kernel::kSsse3) return encode_lines_ssse3;
#endif
  (void)k;
  return nullptr;
}

Base64Kernel best_kernel() {
#if defined(__x86_64__)
  if (kHasAvx512Vbmi) return Base64Kernel::kAvx512Vbmi;
  if (kHasSsse3) return Base64Kernel::kSsse3;
#endif
  return Base64Kernel::kTable;
}

const LineKernel kBestLines = line_kernel(best_kernel());

void encode_with(fmt::memory_buffer& out, binlog::Bytes data, LineKernel lines) {
  const std::size_t n = data.size();
  const std::size_t start = out.size();
  out.resize(start + (n + 2) / 3 * 4 + n / kLineBytes + 1);
  const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
  char* o = out.data() + start;
  const std::size_t i = lines != nullptr ? lines(p, n, o) : 0;
  o = encode_tail(p, i, n, o);
  out.resize(static_cast<std::size_t>(o - out.data()));
}

}  // namespace

bool base64_kernel_available(Base64Kernel k) {
#if defined(__x86_64__)
  if (k == Base64Kernel::kAvx512Vbmi) return kHasAvx512Vbmi;
  if (k == Base64Kernel::kSsse3) return kHasSsse3;
#endif
  return k == Base64Kernel::kTable;
}

void append_base64_with(fmt::memory_buffer& out, binlog::Bytes data, Base64Kernel k) {
  if (!base64_kernel_available(k)) k = Base64Kernel::kTable;
  encode_with(out, data, line_kernel(k));
}

void append_base64(fmt::memory_buffer& out, binlog::Bytes data) {
  encode_with(out, data, kBestLines);
}

}  // namespace binrecover::recovery
